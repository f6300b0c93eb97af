package docfigures

import (
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors int
}

func (r *recorder) Errorf(string, ...any) { r.errors++ }
func (r *recorder) Helper()               {}

// TestCheck: a phrase a document contains passes, one it does not fails
// once per missing phrase, and the repository's docs/ is found from this
// package's directory.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name    string
		phrases []Phrase
		errors  int
	}{
		{"present", []Phrase{{"api.md", "problem+json"}}, 0},
		{"absent", []Phrase{{"api.md", "problem+json"}, {"api.md", "a phrase no document holds 7f3a"}}, 1},
		{"two absent", []Phrase{{"api.md", "7f3a no"}, {"operations.md", "7f3a none"}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			Check(r, tc.phrases)
			if r.errors != tc.errors {
				t.Errorf("%d failures, want %d", r.errors, tc.errors)
			}
		})
	}
}
