package localsig_test

import (
	"bytes"
	"testing"

	"github.com/provenant/provenant/shared/localsig"
)

// FuzzParse: Parse accepts only canonical encodings (Encode∘Parse is the
// identity on what it accepts) and never panics.
func FuzzParse(f *testing.F) {
	f.Add([]byte{1, 1, 0, 1, 0, 3, 4})
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := localsig.Parse(b)
		if err != nil {
			return
		}
		out, err := g.Encode()
		if err != nil {
			t.Fatalf("Encode(Parse(b)) = %v", err)
		}
		if !bytes.Equal(out, b) {
			t.Fatalf("Encode(Parse(b)) = %x, want %x", out, b)
		}
	})
}
