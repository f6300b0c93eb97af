package main

import (
	"slices"
	"testing"
)

// TestAttacksNamed: -attacks picks attacks by whole name, in the list's
// order, an empty list keeps them all, and a name the table lacks is an
// error rather than a shorter run.
func TestAttacksNamed(t *testing.T) {
	names := func(as []attack) []string {
		var n []string
		for _, a := range as {
			n = append(n, a.name)
		}
		return n
	}
	all := names(attacks())
	if got, err := attacksNamed(""); err != nil || !slices.Equal(names(got), all) {
		t.Errorf("empty list: %d attacks (err %v), want all %d", len(got), err, len(all))
	}
	for _, tc := range []struct {
		list string
		want []string
	}{
		{"rot90,jpeg30", []string{"rot90", "jpeg30"}},
		{"jpeg30,rot90", []string{"jpeg30", "rot90"}},
		{"jpeg30", []string{"jpeg30"}},
	} {
		got, err := attacksNamed(tc.list)
		if err != nil || !slices.Equal(names(got), tc.want) {
			t.Errorf("attacksNamed(%q) = %v, %v; want %v", tc.list, names(got), err, tc.want)
		}
	}
	for _, list := range []string{"jpeg3", "no-such-attack", "jpeg30,no-such-attack", "jpeg30,"} {
		if got, err := attacksNamed(list); err == nil {
			t.Errorf("attacksNamed(%q) = %v, want an error", list, names(got))
		}
	}
}

// TestSmallAttackOrder: the small-picture table keeps its columns in the
// order they have always been printed in.
func TestSmallAttackOrder(t *testing.T) {
	got, err := smallAttacks()
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, a := range got {
		n = append(n, a.name)
	}
	want := []string{"none", "jpeg90", "jpeg75", "jpeg50", "resize0.75", "resize1.5", "resize0.75+jpeg75"}
	if !slices.Equal(n, want) {
		t.Fatalf("small attacks %v, want %v", n, want)
	}
}
