package presenttest

import (
	"fmt"
	"os"
	"path/filepath"
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
