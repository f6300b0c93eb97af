package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// flagRow is a row of docs/operations.md's flag tables (the serve table,
// or the backup and restore table with its command column first): flag,
// twin, default cell.
var flagRow = regexp.MustCompile("(?m)^\\|(?:[^|]*\\|)?\\s*`--([a-z0-9-]+)`\\s*\\|\\s*`([A-Z0-9_]+)`\\s*\\|\\s*([^|]*?)\\s*\\|")

// TestDocsStateFlagDefaults: the default column of every flag row in
// docs/operations.md (the complete tables) and docs/api.md (its summary)
// is the default the code gives the flag (as --help prints it, a
// duration in any form time.ParseDuration reads): a leading code span is
// the value itself, "empty", "(required)" or an empty cell is the empty
// string; a cell in words only ("the preset's") is not checked. A flag of
// several commands may have the default of any of them. Every flag of
// every command has a row in docs/operations.md.
func TestDocsStateFlagDefaults(t *testing.T) {
	defaults := map[string][]string{}
	for _, f := range commandFlags(nil) {
		for name, def := range f.defaults {
			defaults[name] = append(defaults[name], def)
		}
	}
	for _, doc := range []string{"operations.md", "api.md"} {
		seen := checkFlagRows(t, doc, defaults)
		if doc != "operations.md" {
			continue
		}
		for name := range defaults {
			if !seen[name] {
				t.Errorf("--%s has no row in docs/operations.md's flag tables", name)
			}
		}
	}
}

// checkFlagRows checks the default cells of doc's flag rows against
// defaults and returns the flags it found rows for.
func checkFlagRows(t *testing.T, doc string, defaults map[string][]string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("../docs/" + doc)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range flagRow.FindAllStringSubmatch(string(b), -1) {
		name, cell := r[1], strings.TrimSpace(r[3])
		seen[name] = true
		defs, ok := defaults[name]
		if !ok {
			t.Errorf("docs/%s has a row for --%s, which no command has", doc, name)
			continue
		}
		var want string
		switch {
		case strings.HasPrefix(cell, "`"):
			want, _, _ = strings.Cut(cell[1:], "`")
		case cell == "" || strings.HasPrefix(cell, "empty") || strings.HasPrefix(cell, "(required)"):
			want = ""
		default:
			continue
		}
		found := false
		for _, d := range defs {
			found = found || d == want || sameDuration(d, want)
		}
		if !found {
			t.Errorf("docs/%s gives --%s the default %q; the code's is %q", doc, name, want, defs)
		}
	}
	return seen
}

// sameDuration says whether a and b are durations, and the same one.
func sameDuration(a, b string) bool {
	da, errA := time.ParseDuration(a)
	db, errB := time.ParseDuration(b)
	return errA == nil && errB == nil && da == db
}
