// Package periodic runs a background step on a fixed interval until its
// context ends: the loop the index follower, the value-log collector and
// the disconnect watch share.
package periodic

import (
	"context"
	"time"
)

// Every calls step once per interval, the first call one interval after
// it starts, until ctx ends or step returns true, and then returns. Once
// ctx has ended step is not called again; a step already running is not
// interrupted (step reads ctx itself if it must stop early).
func Every(ctx context.Context, interval time.Duration, step func() (done bool)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if ctx.Err() != nil || step() {
			return
		}
	}
}
