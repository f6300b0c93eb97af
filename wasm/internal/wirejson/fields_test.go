package wirejson

import (
	"reflect"
	"testing"
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
