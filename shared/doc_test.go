package shared

import (
	"os"
	"strings"
	"testing"
)

// TestDocListsEverySubpackage keeps the package map in doc.go true: every
// directory of the core with Go code is named there, and nothing else.
func TestDocListsEverySubpackage(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if name, ok := strings.CutPrefix(line, "//   - "); ok {
			name, _, _ = strings.Cut(name, ":")
			listed[name] = true
		}
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "testdata" {
			continue
		}
		files, _ := os.ReadDir(e.Name())
		hasGo := false
		for _, f := range files {
			hasGo = hasGo || strings.HasSuffix(f.Name(), ".go")
		}
		if !hasGo {
			continue
		}
		if !listed[e.Name()] {
			t.Errorf("shared/%s is not in doc.go's package map", e.Name())
		}
		delete(listed, e.Name())
	}
	for name := range listed {
		t.Errorf("doc.go lists %s, which is not a subpackage", name)
	}
}
