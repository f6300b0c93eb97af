package verifierwasm

import (
	"errors"
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/provenant/provenant/origin/internal/testkit"
)

// sizeTolerance is how far a size the docs state may be from the built
// module's: the module grows a little with every change to the core, and
// the docs round; past it they no longer describe what is served.
const sizeTolerance = 0.10

// TestDocsStateTheModuleSize: the module sizes docs/widget.md (raw, gzip,
// brotli as served, for the verifier module and the C2PA module) and
// docs/edge.md (its cache table) state are within sizeTolerance of the
// modules this tree builds. Skipped when the module is not built (`make
// wasm`).
func TestDocsStateTheModuleSize(t *testing.T) {
	m, err := Load(Embedded())
	if errors.Is(err, ErrNotBuilt) {
		t.Skip("verifier module not built (make wasm)")
	}
	if err != nil {
		t.Fatal(err)
	}
	widget := readDoc(t, "../../../docs/widget.md")
	sizes := regexp.MustCompile(`([0-9.]+) MB raw, ([0-9.]+) MB gzip, ([0-9.]+) MB brotli as served`).FindStringSubmatch(widget)
	if sizes == nil {
		t.Fatal(`docs/widget.md no longer states the module's size as "N MB raw, N MB gzip, N MB brotli as served"`)
	}
	c2paSizes := regexp.MustCompile(`C2PA\s+module is ([0-9.]+) MB raw, ([0-9.]+) MB gzip, ([0-9.]+) MB brotli as served`).FindStringSubmatch(widget)
	if c2paSizes == nil {
		t.Fatal(`docs/widget.md no longer states the C2PA module's size as "C2PA module is N MB raw, N MB gzip, N MB brotli as served"`)
	}
	c := m.C2PA()
	if c == nil {
		t.Fatal("the build directory holds no C2PA module (make wasm builds both)")
	}
	edge := regexp.MustCompile("`verifier-<hash>.wasm` \\(about ([0-9.]+) MB\\)").FindStringSubmatch(readDoc(t, "../../../docs/edge.md"))
	if edge == nil {
		t.Fatal("docs/edge.md no longer states the module's size as \"`verifier-<hash>.wasm` (about N MB)\"")
	}
	for _, c := range []struct {
		where, doc string
		got        int
	}{
		{"docs/widget.md raw", sizes[1], m.Size()},
		{"docs/widget.md gzip", sizes[2], len(m.Bytes(Gzip))},
		{"docs/widget.md brotli", sizes[3], len(m.Bytes(Brotli))},
		{"docs/edge.md", edge[1], m.Size()},
		{"docs/widget.md C2PA raw", c2paSizes[1], c.Size()},
		{"docs/widget.md C2PA gzip", c2paSizes[2], len(c.Bytes(Gzip))},
		{"docs/widget.md C2PA brotli", c2paSizes[3], len(c.Bytes(Brotli))},
	} {
		mb, err := strconv.ParseFloat(c.doc, 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", c.where, c.doc, err)
		}
		got := float64(c.got) / 1e6
		if math.Abs(got-mb)/got > sizeTolerance {
			t.Errorf("%s says %.2f MB, the built module is %.2f MB (%d bytes)", c.where, mb, got, c.got)
		}
	}
}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	return string(testkit.ReadFile(t, path))
}
