package presenttest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/provenant/provenant/shared/wire"
)

// Every *.verify.json of the directory reaches f once, decoded and named
// after its file; other files do not.
func TestVerdictsVisitsEveryCase(t *testing.T) {
	dir := t.TempDir()
	for i := range minCases {
		body := fmt.Sprintf(`{"authentic":true,"confidence":0.9,"record_id":"r%d","match":"exact"}`, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("case%d.verify.json", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "case0.present.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	Verdicts(t, dir, func(t *testing.T, name string, v wire.VerifyResponse) {
		if !v.Authentic || v.Match != "exact" {
			t.Errorf("%s decoded as %+v", name, v)
		}
		seen[name] = v.RecordID
	})
	if len(seen) != minCases {
		t.Fatalf("f saw %d cases, want %d: %v", len(seen), minCases, seen)
	}
	for i := range minCases {
		if got, want := seen[fmt.Sprintf("case%d", i)], fmt.Sprintf("r%d", i); got != want {
			t.Errorf("case%d: record %q, want %q", i, got, want)
		}
	}
}

// Golden with update writes the copy (and its directory) that the check
// without update then accepts.
func TestGoldenWritesWhatItChecks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "case.txt")
	Golden(t, path, []byte("words\n"), true)
	if b, err := os.ReadFile(path); err != nil || string(b) != "words\n" {
		t.Fatalf("update wrote %q, %v", b, err)
	}
	Golden(t, path, []byte("words\n"), false)
}

// recorder stands in for a test: it keeps what Golden reports instead of
// failing the test that runs it. Fatalf ends the calling goroutine, as the
// testing package's does; any other method reaches the nil testing.TB and
// panics, so an unexpected call cannot pass unnoticed.
type recorder struct {
	testing.TB
	errors, fatals []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
	runtime.Goexit()
}

// golden runs Golden against a recorder on its own goroutine, so that a
// Fatalf ends only that goroutine.
func golden(path string, got []byte) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Golden(r, path, got, false)
	}()
	<-done
	return r
}

// Golden reports a copy that differs from the golden one, naming the file,
// and a golden copy that is missing; the same bytes pass silently.
func TestGoldenReportsMismatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "case.txt")
	if err := os.WriteFile(path, []byte("words\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := golden(path, []byte("words\n")); len(r.errors)+len(r.fatals) != 0 {
		t.Errorf("same bytes reported: %q %q", r.errors, r.fatals)
	}
	for _, got := range []string{"Words\n", "other words\n", "words", "words\n\n", ""} {
		r := golden(path, []byte(got))
		if len(r.errors) != 1 || len(r.fatals) != 0 || !strings.Contains(r.errors[0], path) {
			t.Errorf("%q against %q: errors %q, fatals %q; want one error naming the file", got, "words\n", r.errors, r.fatals)
		}
	}
	if r := golden(path+".missing", []byte("words\n")); len(r.fatals) != 1 || len(r.errors) != 0 {
		t.Errorf("missing golden copy: errors %q, fatals %q; want one fatal", r.errors, r.fatals)
	}
}
