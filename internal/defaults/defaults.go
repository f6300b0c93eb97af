// Package defaults holds the one rule the project's Config structs fill
// their unset fields by: a zero number means "the default", and so does a
// negative one wherever a negative value has no meaning (a timeout, a
// rate, a size). A Config whose negative value means something else (a
// cap of -1: none) says so and does not use this package for it.
package defaults

// Number is what a Config counts in: durations, byte sizes, rates, counts.
type Number interface {
	~int | ~int32 | ~int64 | ~uint32 | ~uint64 | ~float64
}

// Positive returns v when it is above zero, else def.
func Positive[T Number](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}
