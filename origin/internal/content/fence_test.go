package content

import (
	"slices"
	"strings"
	"testing"

	"github.com/provenant/provenant/internal/golist"
)

// contentPkg is this package's import path; the layers below and above
// it are its subpackages.
const contentPkg = "github.com/provenant/provenant/origin/internal/content"

// TestLayerFence keeps the content packages layered one way
// (docs/design.md, "Package cut"): manifests, phindex, nearindex, videos
// and counters sit below content (signing writes manifests, the record
// store indexes hashes and holds the indexes in memory, video records
// keep their fingerprints and frame index, every change counts itself on
// the dashboard) and never import it; receipts and badges sit above it (they only read
// records through small interfaces) and content never imports them; and
// none of them knows HTTP or the server's wiring.
func TestLayerFence(t *testing.T) {
	forbidden := []string{"github.com/valyala/fasthttp", "github.com/fasthttp/",
		"github.com/provenant/provenant/origin/internal/httpapi", "github.com/provenant/provenant/origin/internal/server"}
	tests := []struct {
		pkg string
		// above are content packages pkg must not depend on.
		above []string
	}{
		{"/manifests", []string{"", "/videos", "/nearindex", "/counters", "/receipts", "/badges"}},
		{"/phindex", []string{"", "/manifests", "/videos", "/nearindex", "/counters", "/receipts", "/badges"}},
		{"/nearindex", []string{"", "/manifests", "/videos", "/counters", "/receipts", "/badges"}},
		{"/videos", []string{"", "/manifests", "/nearindex", "/counters", "/receipts", "/badges"}},
		{"/counters", []string{"", "/manifests", "/phindex", "/nearindex", "/videos", "/receipts", "/badges"}},
		{"", []string{"/receipts", "/badges"}},
		{"/receipts", []string{"/badges"}},
		{"/badges", []string{"/receipts"}},
	}
	for _, tt := range tests {
		t.Run("content"+tt.pkg, func(t *testing.T) {
			out := golist.Run(t, nil, "-deps", contentPkg+tt.pkg)
			deps := strings.Fields(string(out))
			if !slices.Contains(deps, contentPkg+tt.pkg) {
				t.Fatalf("go list did not list the package itself:\n%s", out)
			}
			for _, a := range tt.above {
				if slices.Contains(deps, contentPkg+a) {
					t.Errorf("content%s depends on content%s, which sits above it", tt.pkg, a)
				}
			}
			for _, d := range deps {
				for _, f := range forbidden {
					if strings.HasPrefix(d, f) {
						t.Errorf("content%s depends on %s", tt.pkg, d)
					}
				}
			}
		})
	}
}
