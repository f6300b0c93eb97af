// Package validate holds the error types domain packages return for invalid
// input, and the text rule every free-text field follows, so that the HTTP
// layer can map them to a 400 problem naming the fields without the domain
// packages knowing about HTTP.
package validate

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// FieldError reports that one input field is invalid. Field is the JSON
// member name as the client sent it (e.g. "email"); Reason is a short,
// constant, client-safe sentence (it never echoes the submitted value).
type FieldError struct {
	Field  string
	Reason string
	// Unprocessable marks a well-formed value refused by a content rule
	// (the name rules of Name): the HTTP layer answers 422 instead of 400
	// when every invalid field of a request is of this kind.
	Unprocessable bool
}

// Error implements error.
func (e *FieldError) Error() string { return "invalid " + e.Field + ": " + e.Reason }

// Field returns a *FieldError for field with reason.
func Field(field, reason string) error { return &FieldError{Field: field, Reason: reason} }

// Errors is every invalid field of one request, in the order the
// validator checked them. Validators collect into it so that a client
// learns about all its mistakes in one round trip. errors.As finds the
// first *FieldError through it, so callers that expect a single field
// error keep working.
type Errors []*FieldError

// Error implements error.
func (e Errors) Error() string {
	parts := make([]string, len(e))
	for i, fe := range e {
		parts[i] = fe.Error()
	}
	return strings.Join(parts, "; ")
}

// Unwrap exposes the field errors to errors.Is and errors.As.
func (e Errors) Unwrap() []error {
	out := make([]error, len(e))
	for i, fe := range e {
		out[i] = fe
	}
	return out
}

// Add records field as invalid for reason.
func (e *Errors) Add(field, reason string) {
	*e = append(*e, &FieldError{Field: field, Reason: reason})
}

// Check collects err if it is a validation error (a *FieldError or an
// Errors, possibly wrapped) and returns nil; any other error is returned
// unchanged for the caller to handle (nil stays nil).
func (e *Errors) Check(err error) error {
	var many Errors
	var one *FieldError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &many):
		*e = append(*e, many...)
		return nil
	case errors.As(err, &one):
		*e = append(*e, one)
		return nil
	}
	return err
}

// Err returns nil when nothing was collected, else the collected Errors.
func (e Errors) Err() error {
	if len(e) == 0 {
		return nil
	}
	return e
}

// Text checks a single-line free-text value (a name, an identifier shown to
// people, anything that may end up in a signed record): it must be valid
// UTF-8, at most maxRunes characters, and free of control characters (C0
// including TAB, CR and LF, DEL and C1), which could forge line breaks in
// logs and certificates or truncate strings in other systems (NUL), and of
// bidirectional formatting characters (IsBidiControl), which reorder what
// a page shows (a file name "photo\u202Egpj.exe" displays as
// "photoexe.jpg").
// maxRunes <= 0 means no length bound (for values the caller truncates).
// An empty value passes; callers that require one check it separately.
func Text(field, v string, maxRunes int) error {
	return text(field, v, maxRunes, false)
}

// MultilineText is Text for free prose (a description, a reason) that may
// contain TAB and line breaks (LF, CR); every other control character, and
// every bidirectional formatting character, is refused.
func MultilineText(field, v string, maxRunes int) error {
	return text(field, v, maxRunes, true)
}

func text(field, v string, maxRunes int, multiline bool) error {
	if !utf8.ValidString(v) {
		return Field(field, "must be valid UTF-8")
	}
	n := 0
	for _, r := range v {
		n++
		if IsControl(r) && !(multiline && (r == '\t' || r == '\n' || r == '\r')) {
			if multiline {
				return Field(field, "must not contain control characters other than tab and line breaks")
			}
			return Field(field, "must not contain control characters (including tab and line breaks)")
		}
		if IsBidiControl(r) {
			return Field(field, ReasonTextBidi)
		}
	}
	if maxRunes > 0 && n > maxRunes {
		return Field(field, fmt.Sprintf("must be at most %d characters", maxRunes))
	}
	return nil
}

// ReasonTextBidi is the reason a free-text field with a bidirectional
// formatting character is refused.
const ReasonTextBidi = "must not contain bidirectional formatting characters (such as U+202E)"

// IsControl reports whether r is a C0 control (U+0000-U+001F), DEL
// (U+007F) or a C1 control (U+0080-U+009F).
func IsControl(r rune) bool { return r < 0x20 || (r >= 0x7f && r <= 0x9f) }
