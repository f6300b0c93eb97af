package httpapi

import (
	"fmt"
	"testing"

	"github.com/provenant/provenant/shared/imagex"
)

// TestDecodeCapacityProblem: a decode refused for lack of budget is a 503
// decode_capacity with a Retry-After, not a 500.
func TestDecodeCapacityProblem(t *testing.T) {
	p, internal := problemFor(fmt.Errorf("records: verify: %w", imagex.ErrBusy))
	if internal {
		t.Fatal("problemFor(ErrBusy) reported an internal error")
	}
	if p.Status != 503 || p.Code != CodeDecodeCapacity || p.RetryAfter <= 0 {
		t.Errorf("problemFor(ErrBusy) = status %d, code %q, Retry-After %d; want 503 %s with a Retry-After", p.Status, p.Code, p.RetryAfter, CodeDecodeCapacity)
	}
	// Over the whole budget is the image's fault: 422 too_many_pixels.
	p, _ = problemFor(&imagex.DimensionError{Format: imagex.PNG, Width: 7000, Height: 7000, NeedBytes: 2 << 30, MaxBytes: 1 << 30})
	if p.Status != 422 || p.Code != CodeTooManyPixels {
		t.Errorf("problemFor(over budget) = %d %q, want 422 %s", p.Status, p.Code, CodeTooManyPixels)
	}
}
