package signerid

import "testing"

func TestFingerprint(t *testing.T) {
	tests := []struct{ name, in, want string }{
		// SHA-256 of 32 zero bytes is 66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925.
		{"zero key", "0000000000000000000000000000000000000000000000000000000000000000", "66687aadf862bd77"},
		{"not hex", "zz", ""},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Fingerprint(tc.in); got != tc.want {
				t.Errorf("Fingerprint(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestDisplay(t *testing.T) {
	const fp = "1a2b3c4d5e6f7a8b"
	tests := []struct {
		name string
		id   Identity
		want string
	}{
		{"unverified", Identity{}, "unverified organisation: Reuters (key 1a2b3c4d5e6f7a8b)"},
		{"unverified shared", Identity{NameShared: true}, "unverified organisation: Reuters (key 1a2b3c4d5e6f7a8b; another organisation uses this name)"},
		{"verified", Identity{VerifiedDomain: "reuters.com"}, "Reuters (verified domain reuters.com)"},
		{"verified shared", Identity{VerifiedDomain: "reuters.com", NameShared: true}, "Reuters (verified domain reuters.com, key 1a2b3c4d5e6f7a8b)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Display("Reuters", fp, tc.id); got != tc.want {
				t.Errorf("Display = %q, want %q", got, tc.want)
			}
		})
	}
}
