package server

import "github.com/provenant/provenant/internal/ratelimit"

// newLimiter returns the per-IP verify limiter: on the shared store when
// cfg.Limiters is set (one quota across every edge), else in process.
func newLimiter(cfg Config) (ratelimit.Allower, error) {
	if cfg.Limiters != nil {
		return cfg.Limiters("verify", cfg.VerifyPolicy)
	}
	return ratelimit.New(ratelimit.Config{Policy: cfg.VerifyPolicy, Clock: cfg.Clock})
}
