package wasmtest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/provenant/provenant/wasm/wasmtest"
)

// TestModulesLeaveEncodingJSONOut: no package of either module calls
// encoding/json (they answer through wasm/internal/wirejson), so its
// encoder and decoder stay out of the modules as served. shared/wire
// may import it, for the json.RawMessage type of fields the modules
// never carry: a type links none of the package's code.
func TestModulesLeaveEncodingJSONOut(t *testing.T) {
	root, err := wasmtest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct{ pkg, tags string }{{"./wasm", wasmtest.VerifierTags}, {"./wasm/c2pa", ""}} {
		cmd := exec.Command("go", "list", "-deps", "-tags="+m.tags, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", m.pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			if f[0] == "github.com/provenant/provenant/shared/wire" || !strings.HasPrefix(f[0], "github.com/provenant/") {
				continue
			}
			for _, imp := range f[1:] {
				if imp == "encoding/json" {
					t.Errorf("%s: %s imports encoding/json", m.pkg, f[0])
				}
			}
		}
	}
}
