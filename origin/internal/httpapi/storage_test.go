package httpapi

import (
	"fmt"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/blobs"
)

// TestStorageUnavailableProblem: an object-store outage met while
// keeping a signed file answers 503 storage_unavailable with a
// Retry-After, and is logged, however deeply the error is wrapped.
func TestStorageUnavailableProblem(t *testing.T) {
	err := fmt.Errorf("content: keep signed file: %w", fmt.Errorf("blobs: put ab: %w: dial tcp: connection refused", blobs.ErrUnavailable))
	p, internal := problemFor(err)
	if p.Status != fasthttp.StatusServiceUnavailable || p.Code != CodeStorageUnavailable || p.RetryAfter <= 0 || !internal {
		t.Errorf("problemFor(outage) = %d %q Retry-After %d internal %v; want 503 %s, a Retry-After, logged",
			p.Status, p.Code, p.RetryAfter, internal, CodeStorageUnavailable)
	}
	if p, _ := problemFor(fmt.Errorf("content: keep signed file: %w", blobs.ErrDigestMismatch)); p.Code == CodeStorageUnavailable {
		t.Error("a digest mismatch was answered as an outage")
	}
}
