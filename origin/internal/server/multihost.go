package server

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/provenant/provenant/internal/ratelimit"
	"github.com/provenant/provenant/internal/sharedlimit"
	"github.com/provenant/provenant/origin/internal/blobs"
)

// MultiHost holds the settings of the shared services an installation of
// several origins on several machines uses besides the database: an
// object store for the signed files and a Redis for the rate limits.
// Their zero values keep both on this machine.
type MultiHost struct {
	// S3, when its Endpoint is set, keeps the signed files in that
	// bucket instead of a blobs directory (PostgreSQL installations).
	S3 blobs.S3Config
	// RateLimitRedisURL, when set, keeps the rate-limit state in that
	// Redis (or Valkey), one quota for all origins; empty keeps it in
	// each process.
	RateLimitRedisURL string
	// RateLimitRedisPassword overrides the URL's password.
	RateLimitRedisPassword string
	// RateLimitTimeout bounds one rate-limit decision on Redis; past it
	// the process decides alone. Zero: sharedlimit.DefaultTimeout.
	RateLimitTimeout time.Duration
}

// openBlobs opens where the signed files are kept: the S3 bucket when
// one is configured, else the blobs directory.
func openBlobs(cfg Config) (blobs.Store, error) {
	if cfg.S3.Endpoint != "" {
		if cfg.PostgresURL == "" {
			// With Badger the backup archive holds the files; a bucket
			// would be left out of it.
			return nil, errors.New("server: an S3 bucket for the signed files is for PostgreSQL installations; with Badger the files stay under the data directory")
		}
		if cfg.BlobsDir != "" {
			return nil, errors.New("server: the signed files go either to a blobs directory or to an S3 bucket, not both")
		}
		s, err := blobs.NewS3(cfg.S3)
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.Check(ctx); errors.Is(err, blobs.ErrUnavailable) {
			// An outage at start is not a reason to stay down: verify does
			// not need the files, and signs answer 503 until it is back.
			cfg.Logger.Warn("object store unreachable at start: signs answer 503 storage_unavailable until it is back", "err", err)
		} else if err != nil {
			// A missing bucket or refused credentials are configuration
			// faults: refuse to start.
			return nil, fmt.Errorf("server: %w", err)
		}
		return s, nil
	}
	dir := cfg.BlobsDir
	if dir == "" {
		dir = filepath.Join(cfg.DataDir, blobsSubdir)
	}
	d, err := blobs.OpenDir(dir)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	return d, nil
}

// rateLimiters returns the rate limiters' factory: nil (each process
// alone) without a Redis URL, else limiters on that Redis, whose
// fallbacks to the process are counted in
// provenant_ratelimit_store_fallbacks_total.
func rateLimiters(cfg Config, reg prometheus.Registerer) (ratelimit.Factory, error) {
	if cfg.RateLimitRedisURL == "" {
		return nil, nil
	}
	fallbacks := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "provenant_ratelimit_store_fallbacks_total",
		Help: "Rate-limit decisions made in this process alone because the shared store (Redis) did not answer, by limiter.",
	}, []string{"scope"})
	if err := reg.Register(fallbacks); err != nil {
		return nil, fmt.Errorf("server: metrics: %w", err)
	}
	st, err := sharedlimit.New(sharedlimit.Config{URL: cfg.RateLimitRedisURL, Password: cfg.RateLimitRedisPassword,
		Prefix: "provenant:rl:origin:", Timeout: cfg.RateLimitTimeout,
		Logger:     cfg.Logger.With("component", "ratelimit"),
		OnFallback: func(scope string) { fallbacks.WithLabelValues(scope).Inc() }})
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := st.Ping(ctx); err != nil {
		// Not fatal: the limits hold per process until Redis answers.
		cfg.Logger.Warn("rate-limit store not reachable at start: each origin enforces the quotas alone until it is", "err", err)
	}
	return st.Factory(), nil
}
