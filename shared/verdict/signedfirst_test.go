package verdict

import (
	"testing"
	"time"
)

// TestSignedFirst pins the "who signed first" rule every surface applies:
// anchoring time, then pending after anchored, then creation time, then
// at equal times a parent before its derivative and a record without a
// parent before one with; 0 when the rule cannot tell. Each case is also
// checked with a and b swapped (the rule is antisymmetric).
func TestSignedFirst(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	for _, tc := range []struct {
		name string
		a, b Claim
		want int
	}{
		{"anchored earlier wins over created earlier",
			Claim{ID: "a", CreatedAt: at(5), AnchoredAt: at(6)}, Claim{ID: "b", CreatedAt: at(1), AnchoredAt: at(7)}, -1},
		{"anchored before pending, whatever the creation times",
			Claim{ID: "a", CreatedAt: at(5), AnchoredAt: at(6)}, Claim{ID: "b", CreatedAt: at(1)}, -1},
		{"both pending: creation time",
			Claim{ID: "a", CreatedAt: at(2)}, Claim{ID: "b", CreatedAt: at(1)}, 1},
		{"same anchor: creation time",
			Claim{ID: "a", CreatedAt: at(1), AnchoredAt: at(6)}, Claim{ID: "b", CreatedAt: at(2), AnchoredAt: at(6)}, -1},
		{"equal times: parent before its derivative",
			Claim{ID: "a", Parent: "z", CreatedAt: at(1)}, Claim{ID: "b", Parent: "a", CreatedAt: at(1)}, -1},
		{"equal times: original before derivative",
			Claim{ID: "a", Parent: "z", CreatedAt: at(1)}, Claim{ID: "b", CreatedAt: at(1)}, 1},
		{"equal times, both originals: undecided",
			Claim{ID: "a", CreatedAt: at(1)}, Claim{ID: "b", CreatedAt: at(1)}, 0},
		{"equal times, unrelated derivatives: undecided",
			Claim{ID: "a", Parent: "y", CreatedAt: at(1)}, Claim{ID: "b", Parent: "z", CreatedAt: at(1)}, 0},
		{"no times known: parent first",
			Claim{ID: "a", Parent: "b"}, Claim{ID: "b"}, 1},
		{"an earlier derivative beats a later original",
			Claim{ID: "a", Parent: "z", CreatedAt: at(1)}, Claim{ID: "b", CreatedAt: at(2)}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SignedFirst(tc.a, tc.b); got != tc.want {
				t.Errorf("SignedFirst(a, b) = %d, want %d", got, tc.want)
			}
			if got := SignedFirst(tc.b, tc.a); got != -tc.want {
				t.Errorf("SignedFirst(b, a) = %d, want %d", got, -tc.want)
			}
		})
	}
}
