package shared

import (
	"strings"
	"testing"

	"github.com/provenant/provenant/internal/golist"
)

// forbidden are module path fragments that must never reach the
// verification core: they belong to the servers (docs/design.md).
var forbidden = []string{
	"github.com/valyala/fasthttp",
	"github.com/fasthttp/",
	"github.com/dgraph-io/badger",
	"github.com/ethereum/go-ethereum",
	"github.com/golang-jwt/jwt",
	"github.com/tetratelabs/wazero",
}

// TestImportFence lists the dependencies of ./shared/... for native,
// GOOS=js and GOOS=wasip1 and fails on any server dependency or any package
// outside the standard library that uses cgo. Standard packages are exempt
// from the cgo check: net (reached through crypto/x509, which C2PA's
// certificates need) uses cgo only for its optional system resolver and
// builds without it, as the js and wasip1 runs show.
func TestImportFence(t *testing.T) {
	targets := []struct {
		name string
		env  []string
	}{
		{"native", nil},
		{"js/wasm", []string{"GOOS=js", "GOARCH=wasm"}},
		{"wasip1/wasm", []string{"GOOS=wasip1", "GOARCH=wasm"}},
	}
	for _, tt := range targets {
		t.Run(tt.name, func(t *testing.T) {
			env := append([]string{"CGO_ENABLED=1"}, tt.env...)
			out := golist.Run(t, env, "-deps", "-f", "{{.ImportPath}} {{len .CgoFiles}} {{.Standard}}", "./...")
			n := 0
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				fields := strings.Fields(line)
				if len(fields) != 3 {
					t.Fatalf("go list line %q", line)
				}
				path, cgoFiles, std := fields[0], fields[1], fields[2] == "true"
				n++
				for _, f := range forbidden {
					if strings.HasPrefix(path, f) {
						t.Errorf("%s: shared/ depends on %s", tt.name, path)
					}
				}
				if path == "C" || (!std && cgoFiles != "0") {
					t.Errorf("%s: shared/ depends on cgo package %s (%s cgo files)", tt.name, path, cgoFiles)
				}
			}
			if n < 20 {
				t.Fatalf("%s: go list returned only %d packages:\n%s", tt.name, n, out)
			}
		})
	}
}
