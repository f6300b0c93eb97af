package testtool

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestUnderCI(t *testing.T) {
	for _, tt := range []struct {
		env  string
		want bool
	}{
		{"", false}, {"0", false}, {"false", false}, {"FALSE", false},
		{"true", true}, {"1", true}, {"yes", true},
	} {
		t.Setenv("CI", tt.env)
		if got := UnderCI(); got != tt.want {
			t.Errorf("CI=%q: UnderCI() = %v, want %v", tt.env, got, tt.want)
		}
	}
}

// TestMissing: a missing tool skips outside CI and fails under it, with
// the message either way; a tool on PATH is found and nothing ends.
func TestMissing(t *testing.T) {
	for _, tt := range []struct {
		ci                 string
		wantSkip, wantFail bool
	}{
		{"", true, false},
		{"true", false, true},
	} {
		t.Setenv("CI", tt.ci)
		rec := &recorder{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			LookPath(rec, "apt-get install nothing", "provenant-no-such-tool", "provenant-nor-this")
		}()
		<-done
		if rec.skipped != tt.wantSkip || rec.failed != tt.wantFail {
			t.Errorf("CI=%q: skipped %v failed %v, want %v %v", tt.ci, rec.skipped, rec.failed, tt.wantSkip, tt.wantFail)
		}
		if !strings.Contains(rec.msg, "provenant-no-such-tool or provenant-nor-this not on PATH (apt-get install nothing)") {
			t.Errorf("CI=%q: message %q", tt.ci, rec.msg)
		}
	}
	t.Setenv("CI", "true")
	if p := LookPath(t, "", "provenant-no-such-tool", "go"); !strings.HasSuffix(p, "go") {
		t.Errorf("LookPath(go) = %q", p)
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
