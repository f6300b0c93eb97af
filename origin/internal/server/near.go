package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/store"
)

// startNear loads the store's near-duplicate indexes into memory
// (content.LoadNear); stop ends their change-feed polling (PostgreSQL) and
// is safe to call more than once.
func startNear(st store.Store, log *slog.Logger) (near *content.Near, stop context.CancelFunc, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	start := time.Now()
	near, err = content.LoadNear(ctx, st, log.With("component", "near-duplicate index"))
	if err != nil {
		cancel()
		return nil, nil, err
	}
	m, g := near.Len()
	log.Info("near-duplicate index loaded", "hashes", m, "geometric_hashes", g, "took", time.Since(start).Round(time.Millisecond))
	return near, cancel, nil
}
