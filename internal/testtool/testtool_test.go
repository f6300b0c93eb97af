package testtool

import (
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestMissing: for each value of CI, a tool missing under every name
// skips the test outside CI and fails it under CI, with the message
// either way; a tool on PATH is found and nothing ends.
func TestMissing(t *testing.T) {
	for ci, underCI := range map[string]bool{
		"": false, "0": false, "false": false, "FALSE": false,
		"true": true, "1": true, "yes": true,
	} {
		t.Setenv("CI", ci)
		if UnderCI() != underCI {
			t.Errorf("CI=%q: UnderCI() = %v, want %v", ci, !underCI, underCI)
		}
		rec := &recorder{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			LookPath(rec, "apt-get install nothing", "provenant-no-such-tool", "provenant-nor-this")
		}()
		<-done
		if rec.skipped == underCI || rec.failed != underCI {
			t.Errorf("CI=%q: skipped %v failed %v, want failed %v", ci, rec.skipped, rec.failed, underCI)
		}
		if !strings.Contains(rec.msg, "provenant-no-such-tool or provenant-nor-this not on PATH (apt-get install nothing)") {
			t.Errorf("CI=%q: message %q", ci, rec.msg)
		}
		if p := LookPath(t, "", "provenant-no-such-tool", "go"); !strings.HasSuffix(p, "go") {
			t.Errorf("CI=%q: LookPath(go) = %q", ci, p)
		}
	}
}

// recorder notes how a test would have ended instead of ending t.
type recorder struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recorder) Helper() {}

func (r *recorder) Skip(args ...any) {
	r.skipped, r.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) {
	r.failed, r.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}

// TestKill: a running child is ended and reaped (its state is known, and
// it did not run to its end); a child that exited already is left as is.
func TestKill(t *testing.T) {
	cmd := exec.Command(LookPath(t, "coreutils", "sleep"), "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	Kill(cmd)
	if cmd.ProcessState == nil || cmd.ProcessState.Success() {
		t.Fatalf("after Kill: state %v, want a reaped, killed process", cmd.ProcessState)
	}
	done := exec.Command(LookPath(t, "coreutils", "true"))
	if err := done.Run(); err != nil {
		t.Fatal(err)
	}
	Kill(done)
	if !done.ProcessState.Success() {
		t.Errorf("Kill changed an exited process's state to %v", done.ProcessState)
	}
}
