// Package testtool holds the one rule for a test whose outside tool
// (ffmpeg, Chromium, the PostgreSQL server, redis-server, SeaweedFS, the
// independent C2PA reader) is not installed: on a developer's machine the
// test skips, saying what is missing and how to install it; under CI,
// where .ci/run installs every tool, it fails, so that a skip cannot hide
// a test that no longer runs. It also stops a test's child processes. Only
// tests and their helper packages import it.
package testtool

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// UnderCI reports whether the tests run under CI: the CI environment
// variable is set to anything but "", "0" or "false" (.ci/run and the
// usual CI services set CI=true).
func UnderCI() bool {
	switch strings.ToLower(os.Getenv("CI")) {
	case "", "0", "false":
		return false
	}
	return true
}

// Missing ends t because a tool it needs is not there: it skips t with
// the message (format and args, which should say how to install the
// tool), or, under CI, fails t with it.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if UnderCI() {
		t.Fatal(msg + " (CI must run this test: .ci/run installs the tool)")
	}
	t.Skip(msg)
}

// Kill ends the child process cmd started (an outside tool, or the test
// binary run again) and waits for it, so that it leaves no zombie and
// releases its files and ports.
// Errors are ignored: the process may have exited by itself.
func Kill(cmd *exec.Cmd) {
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
}

// LookPath returns the path of the first of names found on PATH. When
// none is, it ends t through Missing, naming them and install (how to get
// one).
func LookPath(t testing.TB, install string, names ...string) string {
	t.Helper()
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	Missing(t, "%s not on PATH (%s)", strings.Join(names, " or "), install)
	return ""
}
