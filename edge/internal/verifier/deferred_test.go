package verifier

import (
	"context"
	"errors"
	"testing"

	"github.com/provenant/provenant/shared/limits"
)

// TestDeferred: before Set every call answers ErrNotReady (not an engine
// failure); after it, calls reach the engine, and a second Set is ignored.
func TestDeferred(t *testing.T) {
	ctx := context.Background()
	d := &Deferred{}
	if d.Ready() || d.Name() != "starting" {
		t.Fatalf("before Set: ready %v, name %q", d.Ready(), d.Name())
	}
	if _, err := d.Analyze(ctx, SmokeImage()); !errors.Is(err, ErrNotReady) || errors.Is(err, ErrEngine) {
		t.Fatalf("Analyze before Set: %v, want ErrNotReady only", err)
	}
	if _, err := d.Decide(ctx, Analysis{}, []byte(`{"candidates":[]}`)); !errors.Is(err, ErrNotReady) {
		t.Fatalf("Decide before Set: %v", err)
	}
	if _, err := d.Swap(ctx, nil); !errors.Is(err, ErrNotReady) {
		t.Fatalf("Swap before Set: %v", err)
	}
	d.Set(Native{Limits: limits.Default()})
	d.Set(nil)
	if !d.Ready() || d.Name() != "native" {
		t.Fatalf("after Set: ready %v, name %q", d.Ready(), d.Name())
	}
	a, err := d.Analyze(ctx, SmokeImage())
	if err != nil || len(a.Facts.SHA256) != 64 {
		t.Fatalf("Analyze after Set: %+v %v", a.Facts, err)
	}
	v, err := d.Decide(ctx, a, []byte(`{"candidates":[]}`))
	if err != nil || v.Authentic {
		t.Fatalf("Decide after Set: %+v %v", v, err)
	}
	if _, err := d.Swap(ctx, nil); err == nil || errors.Is(err, ErrNotReady) {
		t.Fatalf("Swap on the native engine: %v, want a refusal", err)
	}
}
