package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// badgeCommand measures GET requests per second of one path (a badge) at the
// edge and at the origin, in alternating rounds so that both see the same
// machine load, and prints the median ratio.
func badgeCommand(fs *flag.FlagSet) func() error {
	edge := fs.String("edge", "http://127.0.0.1:8090", "edge base URL")
	origin := fs.String("origin", "http://127.0.0.1:8080", "origin base URL")
	path := fs.String("path", "", "path to fetch, e.g. /api/v1/widget/badge/<record id>.svg (required)")
	c := fs.Int("c", 8, "concurrent clients")
	d := fs.Duration("d", 5*time.Second, "duration of each round at each target")
	rounds := fs.Int("rounds", 5, "rounds (edge then origin in each)")
	return func() error {
		if *path == "" {
			return fmt.Errorf("-path is required")
		}
		var er, or, ratios []float64
		for r := 0; r < *rounds; r++ {
			e, err := getLoad(*edge+*path, *c, *d)
			if err != nil {
				return fmt.Errorf("edge: %w", err)
			}
			o, err := getLoad(*origin+*path, *c, *d)
			if err != nil {
				return fmt.Errorf("origin: %w", err)
			}
			er, or, ratios = append(er, e), append(or, o), append(ratios, e/o)
		}
		fmt.Printf("GET %s, c=%d, %d rounds of %v each\n", *path, *c, *rounds, *d)
		fmt.Printf("  edge   requests/s per round: %s (median %.0f)\n", fmtFloats(er, "%.0f"), median(er))
		fmt.Printf("  origin requests/s per round: %s (median %.0f)\n", fmtFloats(or, "%.0f"), median(or))
		fmt.Printf("  edge / origin per round: %s; median %.2f×\n", fmtFloats(ratios, "%.2f"), median(ratios))
		return nil
	}
}

// getLoad fetches u from c clients for d and returns the 200 answers per
// second; any other answer is an error.
func getLoad(u string, c int, d time.Duration) (float64, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: c, MaxConnsPerHost: c}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var n atomic.Int64
	var firstErr atomic.Value
	start := time.Now()
	fanOut(c, func(int) {
		for ctx.Err() == nil {
			req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
			resp, err := client.Do(req)
			if err != nil {
				if ctx.Err() == nil {
					firstErr.CompareAndSwap(nil, err)
				}
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				firstErr.CompareAndSwap(nil, fmt.Errorf("status %d", resp.StatusCode))
				return
			}
			n.Add(1)
		}
	})
	if err, _ := firstErr.Load().(error); err != nil {
		return 0, err
	}
	return float64(n.Load()) / time.Since(start).Seconds(), nil
}
