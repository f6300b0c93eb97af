// Package golist runs `go list` for the tests that hold the module's
// layering (import fences: what a package may depend on, who may import a
// test-only helper). Only tests import it.
package golist

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

// Run returns the standard output of `go list args...`, run in the test's
// package directory with env added to the environment (e.g. GOOS=js). It
// skips the test in -short mode and where no go tool is installed, and
// fails it, with the tool's standard error, when go list fails; what go
// list says on standard error never mixes into the result.
func Run(t testing.TB, env []string, args ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go list")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not in PATH")
	}
	cmd := exec.Command(goBin, append([]string{"list"}, args...)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list %v: %v\n%s", args, err, ee.Stderr)
		}
		t.Fatalf("go list %v: %v", args, err)
	}
	return string(out)
}
