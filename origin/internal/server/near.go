package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/content/nearindex"
	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/origin/internal/store"
)

// NearIndexConfig configures the origin's in-memory near-duplicate index
// (docs/operations.md, "Near-duplicate index").
type NearIndexConfig struct {
	// WithoutGeometric starts a verify-only origin: it does not hold the
	// geometric index (eight hashes per signed picture, read only by
	// look-before-mark), and answers signs of pictures, and registers, with
	// 503 verify_only_origin.
	WithoutGeometric bool
}

// startNear starts loading the store's near-duplicate indexes into memory
// (content.StartNear) and returns at once: the origin listens while they
// load, /ready answers 503 (nearReadyCheck) and the searches that need
// them 503 near_index_loading until they are loaded. stop ends the load
// and the change-feed polling (PostgreSQL) and is safe to call more than
// once.
func startNear(st store.Store, cfg NearIndexConfig, log *slog.Logger) (near *nearindex.Index, stop context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	start := time.Now()
	log = log.With("component", "near-duplicate index")
	near = content.StartNear(ctx, st, log, nearindex.Options{WithoutGeometric: cfg.WithoutGeometric})
	log.Info("near-duplicate index loading; /ready answers 503 until it is loaded", "geometric", !cfg.WithoutGeometric)
	go func() {
		select {
		case <-ctx.Done():
			return
		case <-near.Done():
		}
		m, g := near.Len()
		log.Info("near-duplicate index loaded", "hashes", m, "geometric_hashes", g, "video_hashes", near.VideoLen(),
			"bytes", near.Bytes(), "took", time.Since(start).Round(time.Millisecond))
	}()
	return near, cancel
}

// nearReadyCheck fails while the near-duplicate index is loading (after
// waiting up to nearindex.DefaultWait for it).
func nearReadyCheck(near *nearindex.Index) httpapi.ReadyCheck {
	return httpapi.ReadyCheck{Name: "near_index", Check: near.WaitReady}
}
