package wasmtest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/provenant/provenant/wasm/wasmtest"
)

// moduleDeps is `go list -deps` of pkg built for wasip1 with tags, one
// line a package; format, if given, is the -f template of each line.
func moduleDeps(t *testing.T, pkg, tags string, format ...string) []string {
	t.Helper()
	root, err := wasmtest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"list", "-deps", "-tags=" + tags}
	if len(format) > 0 {
		args = append(args, "-f", format[0])
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}
