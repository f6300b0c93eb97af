package facts

import (
	"errors"
	"fmt"
	"testing"

	"github.com/provenant/provenant/shared/watermark"
)

// asTooSmall is an error that is not a *watermark.TooSmallError but
// says, through its As method, that it stands for one.
type asTooSmall struct{ yes bool }

func (e asTooSmall) Error() string { return "as" }

func (e asTooSmall) As(target any) bool {
	if p, ok := target.(**watermark.TooSmallError); ok && e.yes {
		*p = &watermark.TooSmallError{Width: 1, Height: 1}
		return true
	}
	return false
}

// TestTooSmallIsErrorsAs: tooSmall answers as errors.As with a
// *watermark.TooSmallError target does, for the error itself, wrapped
// once or twice, joined, behind an As method, and for other errors.
func TestTooSmallIsErrorsAs(t *testing.T) {
	small := &watermark.TooSmallError{Width: 10, Height: 10, MinShortSide: 64}
	other := errors.New("other")
	for _, err := range []error{
		nil, other, small,
		fmt.Errorf("a: %w", small),
		fmt.Errorf("b: %w", fmt.Errorf("a: %w", small)),
		fmt.Errorf("a: %v", small),
		errors.Join(other, small),
		errors.Join(other, nil, fmt.Errorf("a: %w", other)),
		fmt.Errorf("both: %w, %w", other, small),
		asTooSmall{yes: true}, asTooSmall{},
		fmt.Errorf("a: %w", asTooSmall{yes: true}),
	} {
		var target *watermark.TooSmallError
		if got, want := tooSmall(err), errors.As(err, &target); got != want {
			t.Errorf("%v: tooSmall %v, errors.As %v", err, got, want)
		}
	}
}
