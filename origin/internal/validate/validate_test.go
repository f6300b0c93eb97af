package validate

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	tests := []struct {
		name      string
		value     string
		max       int
		multiline bool
		wantErr   bool
	}{
		{"plain", "Acme Photo Ltd", 20, false, false},
		{"non-ASCII", "Société Générale 東京", 20, false, false},
		{"empty", "", 5, false, false},
		{"at max runes", "ééééé", 5, false, false},
		{"over max runes", "éééééé", 5, false, true},
		{"no bound", strings.Repeat("a", 1000), 0, false, false},
		{"NUL", "a\x00b", 20, false, true},
		{"escape", "a\x1b[31mb", 20, false, true},
		{"DEL", "a\x7fb", 20, false, true},
		{"C1 NEL", "a\u0085b", 20, false, true},
		{"C1 CSI", "a\u009bb", 20, false, true},
		{"tab single-line", "a\tb", 20, false, true},
		{"newline single-line", "a\nb", 20, false, true},
		{"CR single-line", "a\rb", 20, false, true},
		{"tab multiline", "a\tb", 20, true, false},
		{"newline multiline", "a\r\nb", 20, true, false},
		{"NUL multiline", "a\x00b", 20, true, true},
		{"invalid UTF-8", "a\xffb", 20, false, true},
		{"encoded surrogate", "a\xed\xa0\x80b", 20, false, true},
		{"replacement char is text", "a\ufffdb", 20, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check := Text
			if tc.multiline {
				check = MultilineText
			}
			err := check("org_name", tc.value, tc.max)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			var fe *FieldError
			if err != nil && (!errors.As(err, &fe) || fe.Field != "org_name") {
				t.Errorf("err = %#v, want a *FieldError for org_name", err)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	var errs Errors
	if errs.Err() != nil {
		t.Fatalf("empty Errors.Err() = %v, want nil", errs.Err())
	}
	other := errors.New("store down")
	if got := errs.Check(nil); got != nil {
		t.Errorf("Check(nil) = %v, want nil", got)
	}
	if got := errs.Check(Field("email", "is required")); got != nil {
		t.Errorf("Check(field error) = %v, want nil", got)
	}
	if got := errs.Check(fmt.Errorf("wrapped: %w", Errors{{Field: "a", Reason: "x"}, {Field: "b", Reason: "y"}})); got != nil {
		t.Errorf("Check(wrapped Errors) = %v, want nil", got)
	}
	if got := errs.Check(other); got != other {
		t.Errorf("Check(other) = %v, want it returned unchanged", got)
	}
	errs.Add("c", "z")
	err := errs.Err()
	var got Errors
	if !errors.As(err, &got) || len(got) != 4 {
		t.Fatalf("Err() = %v, want Errors of 4", err)
	}
	for i, want := range []string{"email", "a", "b", "c"} {
		if got[i].Field != want {
			t.Errorf("field %d = %q, want %q", i, got[i].Field, want)
		}
	}
	var first *FieldError
	if !errors.As(err, &first) || first.Field != "email" {
		t.Errorf("errors.As(*FieldError) = %v, want the first (email)", first)
	}
}

// TestTextRefusesBidi: every bidirectional formatting character is refused
// in single-line and multi-line text alike, as in names; the characters
// around them are not.
func TestTextRefusesBidi(t *testing.T) {
	for _, r := range []rune{0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C} {
		v := "photo" + string(r) + "gpj.exe"
		for name, check := range map[string]func(string, string, int) error{"Text": Text, "MultilineText": MultilineText} {
			var fe *FieldError
			if err := check("f", v, 0); !errors.As(err, &fe) || fe.Reason != ReasonTextBidi {
				t.Errorf("%s(%U) = %v, want the bidi reason", name, r, err)
			}
		}
	}
	for _, ok := range []string{"שלום עולם", "مرحبا", "line one\nline two", "zero\u200Cwidth non-joiner"} {
		if err := MultilineText("f", ok, 0); err != nil {
			t.Errorf("MultilineText(%q) = %v", ok, err)
		}
	}
}
