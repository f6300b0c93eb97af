package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/provenant/provenant/client"
	"github.com/provenant/provenant/origin/origintest"
	"github.com/provenant/provenant/shared/present"
)

// TestConformanceCorpusCLI is the CLI's leg of the conformance corpus
// (origin/origintest/corpus): every file of the corpus verified with
// `provenant verify --local --or-upload` (a registered file that is not a
// picture goes to the origin, saying so) reduces to the golden row of its
// case, the exit code says the same verdict, and the text output keeps
// the wording rules.
func TestConformanceCorpusCLI(t *testing.T) {
	o, cp, golden := origintest.StartCorpus(t, "cli")
	c := newCLI(t, o.URL)
	dir := t.TempDir()
	for _, cs := range cp.Cases {
		t.Run(cs.Name, func(t *testing.T) {
			path := filepath.Join(dir, cs.Name)
			if err := os.WriteFile(path, cs.File, 0o644); err != nil {
				t.Fatal(err)
			}
			r := c.run("", "--json", "verify", "--local", "--or-upload", path)
			var v client.VerifyResponse
			if err := json.Unmarshal([]byte(r.out), &v); err != nil {
				t.Fatalf("exit %d, stdout %q, stderr %q: %v", r.code, r.out, r.err, err)
			}
			if want := map[bool]int{true: 0, false: 1}[v.Authentic]; r.code != want {
				t.Errorf("exit %d for authentic=%v, want %d", r.code, v.Authentic, want)
			}
			cp.Expect(t, golden, cs, v)
			text := c.run("", "verify", "--local", "--or-upload", path)
			for _, bad := range present.TextViolations(v, written(v, text.out)) {
				t.Errorf("text: %s\n%s", bad, text.out)
			}
		})
	}
}
