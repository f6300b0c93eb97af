package wasmtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/wasm/wasmtest"
)

// TestVerifierLeavesTimeLayoutOut keeps Go's generic time layout parser
// and formatter out of the verifier module (docs/widget.md, "Size"): they
// come back with one time.Parse or Time.Format call in the core, or with a
// time.Time reached through an interface (which keeps Time.String). The
// linker's dependency dump names what the module links; it is the release
// build with the dump switched on.
func TestVerifierLeavesTimeLayoutOut(t *testing.T) {
	dump := verifierDependencies(t)
	for _, sym := range []string{"time.parse", "time.Time.appendFormat", "time.Time.String"} {
		if strings.Contains(dump, "-> "+sym+"\n") {
			t.Errorf("the verifier module links %s", sym)
		}
	}
}

// TestVerifierLeavesReflectiveSortsAndErrorsAsOut keeps out of the
// verifier module the sorts that would each link another copy of
// pdqsort beside sort's Interface variant (which compress/flate needs),
// reflectlite's Swapper among them, and errors.As with reflectlite's
// assignability checks (docs/widget.md, "Size"): they come back with one
// call in the core.
func TestVerifierLeavesReflectiveSortsAndErrorsAsOut(t *testing.T) {
	dump := verifierDependencies(t)
	if !strings.Contains(dump, "-> sort.Sort\n") {
		t.Fatalf("the dependency dump does not list sort.Sort; is -dumpdep still honoured?\n%.2000s", dump)
	}
	for _, sym := range []string{"sort.Slice", "sort.SliceStable", "sort.Float64s", "sort.Ints",
		"internal/reflectlite.Swapper", "errors.As"} {
		if strings.Contains(dump, "-> "+sym+"\n") {
			t.Errorf("the verifier module links %s", sym)
		}
	}
}

// verifierDependencies is the linker's dependency dump of the verifier
// module: the release build with the dump switched on.
func verifierDependencies(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("links the verifier module")
	}
	root, err := wasmtest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, a := range wasmtest.BuildArgs {
		if strings.HasPrefix(a, "-ldflags=") {
			a += " -dumpdep"
		}
		args = append(args, a)
	}
	args = append(args, "-tags="+wasmtest.VerifierTags, "-o", filepath.Join(t.TempDir(), "verifier.wasm"), "./wasm")
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%.2000s", strings.Join(args, " "), err, out)
	}
	dump := string(out)
	if !strings.Contains(dump, "-> time.Date") {
		t.Fatalf("the dependency dump does not list time.Date; is -dumpdep still honoured?\n%.2000s", dump)
	}
	return dump
}
