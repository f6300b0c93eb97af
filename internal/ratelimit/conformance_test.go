package ratelimit_test

import (
	"testing"
	"time"

	"github.com/provenant/provenant/internal/ratelimit"
	"github.com/provenant/provenant/internal/ratelimit/ratelimittest"
	"github.com/provenant/provenant/shared/clock"
)

func TestConformance(t *testing.T) {
	ratelimittest.Run(t, 200, func(t *testing.T, quota int, window time.Duration, maxKeys int) (ratelimit.Allower, *clock.Fake) {
		clk := clock.NewFake(ratelimittest.Start)
		l, err := ratelimit.New(ratelimit.Config{Policy: ratelimit.Policy{Name: "test", Quota: quota, Window: window}, Clock: clk, MaxKeys: maxKeys})
		if err != nil {
			t.Fatal(err)
		}
		return l, clk
	})
}
