package c2pa

import (
	"testing"

	c2pasniff "github.com/provenant/provenant/shared/c2pa/sniff"
)

// TestSniffConstants: the light sniffer looks for the reader's store UUID
// and stops at the reader's segment bound.
func TestSniffConstants(t *testing.T) {
	if c2pasniff.StoreUUID != uuidStore || c2pasniff.MaxSegments != MaxSegments {
		t.Fatal("sniff's store UUID or segment bound is not the reader's")
	}
}
