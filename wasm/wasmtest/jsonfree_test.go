package wasmtest_test

import (
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
	for _, m := range []struct{ pkg, tags string }{{"./wasm", wasmtest.VerifierTags}, {"./wasm/c2pa", ""}} {
		for _, line := range moduleDeps(t, m.pkg, m.tags, `{{.ImportPath}} {{join .Imports " "}}`) {
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
