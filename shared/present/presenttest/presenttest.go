// Package presenttest hands tests the golden verify responses of
// shared/present (testdata/*.verify.json: verdicts of each match kind,
// revoked records and keys, derivative chains, pending anchoring,
// record-only, the conformance corpus's cases), which every surface that
// words a verdict is held to, and the golden-copy check those tests share.
package presenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/provenant/provenant/shared/wire"
)

// minCases guards against a wrong directory or a broken glob: the golden
// set holds far more cases than this.
const minCases = 10

// Verdicts runs f, as a subtest named after the case, on every golden
// verify response in dir (shared/present/testdata, as a path from the
// calling test's directory), decoded.
func Verdicts(t *testing.T, dir string, f func(t *testing.T, name string, v wire.VerifyResponse)) {
	t.Helper()
	ins, err := filepath.Glob(filepath.Join(dir, "*.verify.json"))
	if err != nil || len(ins) < minCases {
		t.Fatalf("golden verify responses in %s: %d files, %v", dir, len(ins), err)
	}
	for _, in := range ins {
		name := strings.TrimSuffix(filepath.Base(in), ".verify.json")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var v wire.VerifyResponse
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			f(t, name, v)
		})
	}
}

// Golden checks got against the golden copy at path; with update it
// writes got there instead (creating its directory), for a change of
// wording that is meant. It takes a testing.TB so that its own test can
// record a mismatch instead of failing on it.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (-update writes it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s changed (-update rewrites it)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
