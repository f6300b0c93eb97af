package main

import (
	"strings"
	"testing"
)

// TestParseTable reads a stanza of each kind: a named test selection and
// a regexp given directly, an empty replacement (a deleted line), an
// equivalent mutant, and a file named again later.
func TestParseTable(t *testing.T) {
	const text = `# a comment
tests fit TestA|TestB

file a/a.go
mutant a/one
	from "\tif x < y {"
	to "\tif x <= y {"
	run fit
	breaks one more passes

mutant a/two
	from "\tcheck()\n"
	to ""
	run ^TestC$
	breaks nothing is checked
	equivalent the caller checks as well

file b/b.go
mutant b/three
	from "q"
	to "r"
	breaks all of b
`
	got, err := parseTable(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []mutant{
		{Name: "a/one", File: "a/a.go", From: "\tif x < y {", To: "\tif x <= y {", Run: "TestA|TestB", Breaks: "one more passes"},
		{Name: "a/two", File: "a/a.go", From: "\tcheck()\n", To: "", Run: "^TestC$", Breaks: "nothing is checked", Equivalent: "the caller checks as well"},
		{Name: "b/three", File: "b/b.go", From: "q", To: "r", Breaks: "all of b"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d mutants, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mutant %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// TestParseTableRefuses: a stanza the runner could not apply as written
// is an error naming its line, not a mutant quietly left out or changed.
func TestParseTableRefuses(t *testing.T) {
	const head = "file a.go\nmutant a/m\n"
	for _, tc := range []struct{ name, text, want string }{
		{"no breaks", head + "\tfrom \"x\"\n\tto \"y\"\n", "required"},
		{"no to", head + "\tfrom \"x\"\n\tbreaks b\n", "required"},
		{"no from, next mutant", head + "\tto \"y\"\n\tbreaks b\nmutant a/n\n", "mutants.txt:5"},
		{"unquoted from", head + "\tfrom x\n\tto \"y\"\n\tbreaks b\n", "mutants.txt:3"},
		{"field twice", head + "\tfrom \"x\"\n\tfrom \"z\"\n", "given twice"},
		{"unknown field", head + "\tform \"x\"\n", "unknown field"},
		{"unknown directive", "files a.go\n", "unknown directive"},
		{"mutant before a file", "mutant a/m\n", "before any file"},
		{"field outside a mutant", "file a.go\n\tfrom \"x\"\n", "outside a mutant"},
		{"tests without a regexp", "tests fit\n", "tests NAME REGEXP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := parseTable(tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %+v, %v; want an error with %q", ms, err, tc.want)
			}
		})
	}
}
