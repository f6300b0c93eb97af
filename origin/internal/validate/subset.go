package validate

import (
	"slices"
	"strings"
)

// Subset validates field, a choice among all (API key scopes, webhook
// event types): nil means every one (a copy of all); an empty list is
// refused with emptyReason; a value outside all is refused naming the
// allowed ones. Repeated values count once, and the result is in the
// order of all, whatever the order of in.
func Subset(field string, in, all []string, emptyReason string) ([]string, error) {
	if in == nil {
		return slices.Clone(all), nil
	}
	if len(in) == 0 {
		return nil, Field(field, emptyReason)
	}
	for _, v := range in {
		if !slices.Contains(all, v) {
			return nil, Field(field, "must contain only "+strings.Join(all, ", "))
		}
	}
	var out []string
	for _, v := range all {
		if slices.Contains(in, v) {
			out = append(out, v)
		}
	}
	return out, nil
}
