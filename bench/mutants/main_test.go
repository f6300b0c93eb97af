package main

import "testing"

// TestEveryMutantApplies keeps the list honest: a mutant whose line was
// rewritten by a refactor no longer mutates anything, so the check it
// guards would silently leave mutation testing.
func TestEveryMutantApplies(t *testing.T) {
	if err := run("", false, true, 0, false); err != nil {
		t.Fatal(err)
	}
}
