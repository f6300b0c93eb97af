package phash

import (
	"fmt"
	"testing"

	"github.com/provenant/provenant/internal/docfigures"
)

// TestNearDistanceIsTheDocumented pins the near threshold to the value
// docs/verification.md states and checks Near at its edge: 64 differing
// bits of 256 are near, 65 are not.
func TestNearDistanceIsTheDocumented(t *testing.T) {
	if NearDistance256 != 64 {
		t.Errorf("NearDistance256 = %d; docs/verification.md documents 64", NearDistance256)
	}
	docfigures.Check(t, []docfigures.Phrase{
		{Doc: "verification.md", Text: fmt.Sprintf("**`phash.NearDistance256 = %d`**", NearDistance256)},
	})
	flip := func(n int) Hash {
		var h Hash
		for i := range n {
			h.P256[i/64] |= 1 << (i % 64)
		}
		return h
	}
	for _, tc := range []struct {
		bits int
		near bool
	}{{0, true}, {63, true}, {64, true}, {65, false}, {128, false}} {
		if got := Near(Hash{}, flip(tc.bits)); got != tc.near {
			t.Errorf("Near at distance %d = %v, want %v", tc.bits, got, tc.near)
		}
	}
}
