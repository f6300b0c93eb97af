package httpapi

import (
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/provenant/provenant/origin/internal/store"
)

// TestOutOfSpaceIs507: the store's free-space refusal and a write that
// hits ENOSPC (the kept file) answer 507 insufficient_storage with
// Retry-After, logged for the operator, not 500.
func TestOutOfSpaceIs507(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("content: store record: %w", store.ErrNoSpace),
		fmt.Errorf("content: keep signed file: %w", &os.PathError{Op: "write", Path: "blob", Err: syscall.ENOSPC}),
	} {
		p, internal := problemFor(err)
		if p.Status != 507 || p.Code != CodeInsufficientStorage || p.RetryAfter <= 0 || !internal {
			t.Errorf("%v: %d %s retry %d internal %v, want 507 insufficient_storage with Retry-After, logged", err, p.Status, p.Code, p.RetryAfter, internal)
		}
	}
}
