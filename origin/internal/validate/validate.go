// Package validate holds the error type domain packages return for invalid
// input, so that the HTTP layer can map it to a 400 problem naming the field
// without the domain packages knowing about HTTP.
package validate

// FieldError reports that one input field is invalid. Field is the JSON
// member name as the client sent it (e.g. "email"); Reason is a short,
// constant, client-safe sentence (it never echoes the submitted value).
type FieldError struct {
	Field  string
	Reason string
}

// Error implements error.
func (e *FieldError) Error() string { return "invalid " + e.Field + ": " + e.Reason }

// Field returns a *FieldError for field with reason.
func Field(field, reason string) error { return &FieldError{Field: field, Reason: reason} }
