package validate

import (
	"errors"
	"slices"
	"testing"
)

func TestSubset(t *testing.T) {
	all := []string{"sign", "read", "webhooks"}
	tests := []struct {
		name   string
		in     []string
		want   []string
		reason string // "" when accepted
	}{
		{"nil means all", nil, all, ""},
		{"one", []string{"read"}, []string{"read"}, ""},
		{"in the order of all", []string{"webhooks", "sign"}, []string{"sign", "webhooks"}, ""},
		{"repeats count once", []string{"read", "read", "sign"}, []string{"sign", "read"}, ""},
		{"empty refused", []string{}, nil, "must not be empty"},
		{"unknown refused", []string{"read", "admin"}, nil, "must contain only sign, read, webhooks"},
		{"case matters", []string{"Read"}, nil, "must contain only sign, read, webhooks"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Subset("scopes", tc.in, all, "must not be empty")
			var fe *FieldError
			switch {
			case tc.reason == "" && (err != nil || !slices.Equal(got, tc.want)):
				t.Errorf("Subset(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			case tc.reason != "" && (!errors.As(err, &fe) || fe.Field != "scopes" || fe.Reason != tc.reason || got != nil):
				t.Errorf("Subset(%q) = %q, %v; want a scopes error %q", tc.in, got, err, tc.reason)
			}
		})
	}
	got, _ := Subset("scopes", nil, all, "")
	got[0] = "changed"
	if all[0] != "sign" {
		t.Error("the result of nil shares all's array")
	}
}
