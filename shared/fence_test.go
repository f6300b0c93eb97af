package shared

import (
	"os"
	"os/exec"
	"strings"
	"testing"
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
// that uses cgo.
func TestImportFence(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list three times")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not in PATH")
	}
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
			cmd := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}} {{len .CgoFiles}}", "./...")
			cmd.Env = append(append(os.Environ(), "CGO_ENABLED=1"), tt.env...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("go list: %v\n%s", err, out)
			}
			n := 0
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				path, cgoFiles, _ := strings.Cut(line, " ")
				n++
				for _, f := range forbidden {
					if strings.HasPrefix(path, f) {
						t.Errorf("%s: shared/ depends on %s", tt.name, path)
					}
				}
				if path == "C" || path == "runtime/cgo" || cgoFiles != "0" {
					t.Errorf("%s: shared/ depends on cgo package %s (%s cgo files)", tt.name, path, cgoFiles)
				}
			}
			if n < 20 {
				t.Fatalf("%s: go list returned only %d packages:\n%s", tt.name, n, out)
			}
		})
	}
}
