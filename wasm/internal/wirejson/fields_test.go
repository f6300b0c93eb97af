package wirejson

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestJSONTagReadsAsStructTag: jsonTag reads tags as reflect.StructTag
// does, but for escaped values, which it takes as absent.
func TestJSONTagReadsAsStructTag(t *testing.T) {
	for _, tag := range []string{``, `json:"a"`, `json:"a,omitempty"`, `json:"-"`, `json:",omitempty"`, `xml:"x" json:"b"`,
		`  json:"c"  `, `json:"d" json:"e"`, `jsonx:"f" json:"g"`, `json:`, `json:"unterminated`, `json"h"`, `:"i"`,
		`a b json:"j"`, `x:"\"" json:"k"`, `json:"l\"m"`} {
		want := reflect.StructTag(tag).Get("json")
		if tag == `json:"l\"m"` {
			want = ""
		}
		if got := jsonTag(tag); got != want {
			t.Errorf("jsonTag(%q) = %q, want %q", tag, got, want)
		}
	}
}

// TestFoldMatchesASCIINamesAsEncodingJSON: for every rune, fold maps it
// to an ASCII byte exactly when encoding/json's folding does, and to the
// same byte, so a key matches an ASCII field name under the same rule.
func TestFoldMatchesASCIINamesAsEncodingJSON(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r < 0xe000 {
			continue
		}
		want := unicode.ToUpper(unicode.ToLower(r))
		if r < utf8.RuneSelf {
			want = unicode.ToUpper(r)
		}
		got := []rune(fold(string(r)))
		if len(got) != 1 {
			t.Fatalf("fold(%q) = %q", r, string(got))
		}
		if (want < utf8.RuneSelf || got[0] < utf8.RuneSelf) && got[0] != want {
			t.Errorf("fold(%q) = %q, encoding/json folds it to %q", r, got[0], want)
		}
	}
}

// TestValidNameIsEncodingJSONsForASCII: validName agrees with
// encoding/json's tag-name rule on every printable ASCII character.
func TestValidNameIsEncodingJSONsForASCII(t *testing.T) {
	for c := rune(0x20); c < 0x7f; c++ {
		want := strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) || unicode.IsLetter(c) || unicode.IsDigit(c)
		if got := validName("a" + string(c)); got != want {
			t.Errorf("validName(%q) = %v, want %v", "a"+string(c), got, want)
		}
	}
}
