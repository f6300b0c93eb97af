package golist

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestRun: the package's own import path and its dependencies come back on
// standard output, and an environment entry reaches the go command.
func TestRun(t *testing.T) {
	const self = "github.com/provenant/provenant/internal/golist"
	if got := strings.TrimSpace(Run(t, nil, ".")); got != self {
		t.Errorf("go list . = %q, want %q", got, self)
	}
	deps := strings.Fields(Run(t, nil, "-deps", "."))
	if len(deps) < 5 || deps[len(deps)-1] != self {
		t.Errorf("go list -deps . = %v", deps)
	}
	if got := strings.TrimSpace(Run(t, []string{"GOOS=js", "GOARCH=wasm"}, "-f", "{{context.GOOS}}", ".")); got != "js" {
		t.Errorf("GOOS=js reached go list as %q", got)
	}
}

// TestRunFails: a go list that fails fails the test, saying why.
func TestRunFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	ft := &fatalT{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ft, nil, "./no/such/package")
	}()
	<-done
	if !ft.failed || !strings.Contains(ft.msg, "go list") {
		t.Errorf("a failing go list: failed %v, message %q", ft.failed, ft.msg)
	}
}

// fatalT records Fatalf instead of failing the enclosing test.
type fatalT struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fatalT) Helper() {}

func (f *fatalT) Fatalf(format string, args ...any) {
	f.failed = true
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
