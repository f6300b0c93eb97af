// Package docfigures keeps the figures the documents under docs/ restate
// from the code (limits, quotas, defaults) true: a test writes each phrase
// from the constants and Check fails it when a document no longer
// contains the phrase, so that the constant or the document cannot change
// alone. It is test support; nothing in a production binary imports it.
package docfigures

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Phrase is text the document Doc (a file name under docs/, such as
// "api.md") must contain word for word, line breaks included.
type Phrase struct {
	Doc, Text string
}

// Check fails t once for every phrase its document does not contain, and
// fatally when docs/ or a document cannot be read. docs/ is found in the
// nearest directory above the test's own that holds go.mod.
func Check(t testing.TB, phrases []Phrase) {
	t.Helper()
	dir, err := docsDir()
	if err != nil {
		t.Fatal(err)
	}
	read := map[string]string{}
	for _, p := range phrases {
		doc, ok := read[p.Doc]
		if !ok {
			b, err := os.ReadFile(filepath.Join(dir, p.Doc))
			if err != nil {
				t.Fatal(err)
			}
			doc = string(b)
			read[p.Doc] = doc
		}
		if !strings.Contains(doc, p.Text) {
			t.Errorf("docs/%s no longer says %q: the code or the document changed alone", p.Doc, p.Text)
		}
	}
}

// docsDir is the docs/ directory of the module the working directory is in.
func docsDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "docs"), nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", os.ErrNotExist
		}
		dir = up
	}
}
