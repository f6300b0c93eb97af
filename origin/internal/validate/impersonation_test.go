package validate

import (
	"errors"
	"testing"
)

// TestDisplayName: names that imitate the verification label are refused
// (422, the reason naming the rule); names that only contain a label word
// as part of the organisation's name pass.
func TestDisplayName(t *testing.T) {
	tests := []struct {
		name, in, reason string
	}{
		{"fingerprint in a qualifier", "Reuters (key 5832517e7b62c4e0)", ReasonNameFingerprint},
		{"bare fingerprint", "Reuters 5832517e7b62c4e0", ReasonNameFingerprint},
		{"half a fingerprint", "Reuters 5832517e", ReasonNameFingerprint},
		{"grouped fingerprint", "Reuters 5832 517e 7b62 c4e0", ReasonNameFingerprint},
		{"full-width fingerprint", "Reuters ５８３２５１７ｅ７ｂ６２", ReasonNameFingerprint},
		{"upper-case fingerprint", "Reuters 5832517E7B62C4E0", ReasonNameFingerprint},
		{"verified domain qualifier", "Reuters (verified domain reuters.com)", ReasonNameLabel},
		{"verified domain, accents", "Reuters (vérified domain reuters.com)", ReasonNameLabel},
		{"verified domain, no brackets", "Reuters verified domain reuters.com", ReasonNameLabel},
		{"verified-domain hyphenated", "Reuters verified-domain", ReasonNameLabel},
		{"key qualifier", "Reuters (key abc)", ReasonNameLabel},
		{"official qualifier", "Reuters (Official)", ReasonNameLabel},
		{"square bracket qualifier", "Reuters [verified]", ReasonNameLabel},
		{"unclosed qualifier", "Reuters (verified", ReasonNameLabel},
		{"label prefix", "unverified organisation: Reuters", ReasonNameLabel},
		{"unverified anywhere", "Unverified Reuters", ReasonNameLabel},
		{"trailing verified", "Reuters Verified", ReasonNameLabel},
		{"trailing official", "Reuters OFFICIAL", ReasonNameLabel},
		{"dash qualifier", "Reuters - official", ReasonNameLabel},
		{"comma qualifier with domain", "Reuters, verified reuters.com", ReasonNameLabel},
		{"bar qualifier", "Reuters | domain reuters.com", ReasonNameLabel},
		{"verified by", "Reuters verified by Provenant", ReasonNameLabel},
		{"shared-name phrase", "Reuters another organisation uses this name", ReasonNameLabel},
		{"look-alike letters", "Reuters (vеrified)", ReasonNameScripts},
		{"digit look-alikes", "Reuters (0fficial)", ReasonNameLabel},
		// Legitimate names.
		{"plain", "Reuters", ""},
		{"official in the name", "Official Charts Company", ""},
		{"domain in the name", "Domain Media", ""},
		{"verified in the name", "Verified Market Research", ""},
		{"dotted trade name", "Booking.com", ""},
		{"year", "Photo Agency 2024", ""},
		{"long number without letters", "Studio 1234567890", ""},
		{"hex-like words", "Cafe Bad Deeds", ""},
		{"short code", "BBC 4", ""},
		{"key in a word", "Keystone Press", ""},
		{"bracketed place", "Example News (Berlin)", ""},
		{"dash in the name", "Reuters - Berlin Bureau", ""},
		{"trade mark allowed", "Acme®", ""},
		{"CJK", "NHK 日本放送協会", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DisplayName("org_name", tc.in, 200)
			if tc.reason == "" {
				if err != nil {
					t.Errorf("DisplayName(%q) = %v, want accepted", tc.in, err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Reason != tc.reason || !fe.Unprocessable {
				t.Errorf("DisplayName(%q) = %q, %v; want refused (422) with %q", tc.in, got, err, tc.reason)
			}
		})
	}
}

// FuzzDisplayName: DisplayName never panics, accepts only what Name
// accepts, and an accepted name is accepted again unchanged.
func FuzzDisplayName(f *testing.F) {
	for _, s := range []string{"Reuters (key 5832517e7b62c4e0)", "Reuters (verified domain reuters.com)", "Official Charts Company",
		"5832 517e", "Reuters (", "((()))", "Ｒéｕｔｅｒｓ™", "a-b|c:d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := DisplayName("n", s, 200)
		if err != nil {
			return
		}
		if n, err := Name("n", s, 200); err != nil || n != got {
			t.Fatalf("DisplayName(%q) = %q but Name = %q, %v", s, got, n, err)
		}
		if again, err := DisplayName("n", got, 200); err != nil || again != got {
			t.Fatalf("DisplayName not idempotent on %q: %q, %v", got, again, err)
		}
	})
}
