package main

import (
	"slices"
	"testing"
)

// TestAttacksNamed: -attacks picks attacks by whole name, in the table's
// order, and an empty list keeps them all.
func TestAttacksNamed(t *testing.T) {
	names := func(as []attack) []string {
		var n []string
		for _, a := range as {
			n = append(n, a.name)
		}
		return n
	}
	all := names(attacks())
	if got := names(attacksNamed("")); !slices.Equal(got, all) {
		t.Errorf("empty list: %d attacks, want all %d", len(got), len(all))
	}
	for _, tc := range []struct {
		list string
		want []string
	}{
		{"rot90,jpeg30", []string{"rot90", "jpeg30"}},
		{"jpeg30", []string{"jpeg30"}},
		{"jpeg3", nil},
		{"no-such-attack", nil},
	} {
		if got := names(attacksNamed(tc.list)); !slices.Equal(got, tc.want) {
			t.Errorf("attacksNamed(%q) = %v, want %v", tc.list, got, tc.want)
		}
	}
}
