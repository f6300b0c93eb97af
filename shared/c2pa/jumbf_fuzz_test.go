package c2pa

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// FuzzJUMBF: the box parser stays inside its input and within its bounds,
// and a parsed store validates (structure and signature) without a panic.
func FuzzJUMBF(f *testing.F) {
	f.Add(superBox(uuidStore, "c2pa", superBox(uuidManifest, "urn:uuid:x")))
	f.Add([]byte("\x00\x00\x00\x01jumb\x00\x00\x00\x00\x00\x00\x00\x10"))
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := parseStore(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		var walk func(b *box, depth int)
		walk = func(b *box, depth int) {
			if depth > maxDepth {
				t.Fatalf("depth %d", depth)
			}
			if !bytes.Contains(b.raw, b.content) || len(b.content) > len(b.raw) {
				t.Fatal("box content outside the box")
			}
			for _, c := range b.children {
				walk(c, depth+1)
			}
		}
		walk(root, 0)
		if _, err := ReadStore(data, nil, time.Now()); err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrNoManifest) {
			t.Fatalf("ReadStore: untyped error %v", err)
		}
	})
}
