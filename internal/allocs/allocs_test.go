package allocs

import "testing"

var sink []byte

// TestDuring: a 1 MiB allocation is counted (at least its size), and
// nothing much is counted for a function that allocates nothing.
func TestDuring(t *testing.T) {
	const size = 1 << 20
	if got := During(func() { sink = make([]byte, size) }); got < size {
		t.Errorf("During(1 MiB) = %d, want at least %d", got, size)
	}
	if got := During(func() {}); got > 64<<10 {
		t.Errorf("During(nothing) = %d bytes", got)
	}
}
