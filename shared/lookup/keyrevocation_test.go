package lookup

import (
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/wire"
)

func TestDecideKey(t *testing.T) {
	at := func(m int) time.Time {
		return time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(m) * time.Minute)
	}
	var zero time.Time
	for _, tt := range []struct {
		name              string
		k                 KeyTimes
		source            string
		created, anchored time.Time
		rule, decision    string
		detailHas         string
	}{
		{"active key", KeyTimes{Custody: wire.CustodyService}, "sign", at(0), at(1), "", "", ""},
		{"compromised, anchored before", KeyTimes{Custody: wire.CustodyService, RevokedAt: at(60), CompromisedSince: at(10)}, "sign", at(0), at(5),
			wire.KeyRuleCompromised, wire.KeyDecisionValid, "anchored at 2026-05-01T12:05:00.000Z, before that"},
		{"compromised, anchored after", KeyTimes{Custody: wire.CustodyService, RevokedAt: at(60), CompromisedSince: at(10)}, "sign", at(0), at(20),
			wire.KeyRuleCompromised, wire.KeyDecisionNotAuthentic, "after that, so it is not authentic"},
		{"compromised, signed before but pending", KeyTimes{Custody: wire.CustodyService, RevokedAt: at(60), CompromisedSince: at(10)}, "sign", at(0), zero,
			wire.KeyRuleCompromised, wire.KeyDecisionNotAuthentic, "not anchored before that"},
		{"compromised at the anchoring instant", KeyTimes{Custody: wire.CustodyService, RevokedAt: at(60), CompromisedSince: at(5)}, "sign", at(0), at(5),
			wire.KeyRuleCompromised, wire.KeyDecisionNotAuthentic, ""},
		{"retired service key, signed before, pending", KeyTimes{Custody: wire.CustodyService, RevokedAt: at(1)}, "sign", at(0), zero,
			wire.KeyRuleRetiredServiceTime, wire.KeyDecisionValid, "the service signed this record at 2026-05-01T12:00:00.000Z"},
		{"retired service key, signed before, anchored after", KeyTimes{Custody: wire.CustodyService, RevokedAt: at(1)}, "sign", at(0), at(30),
			wire.KeyRuleRetiredServiceTime, wire.KeyDecisionValid, ""},
		{"retired service key, no service time before", KeyTimes{Custody: wire.CustodyService, RevokedAt: at(1)}, "sign", at(2), zero,
			wire.KeyRuleRetiredServiceTime, wire.KeyDecisionNotAuthentic, ""},
		{"retired device key, registered before, pending", KeyTimes{Custody: wire.CustodyDevice, RevokedAt: at(1)}, "register", at(0), zero,
			wire.KeyRuleRetiredAnchorTime, wire.KeyDecisionNotAuthentic, "not authentic until its batch is anchored"},
		{"retired device key, registered before, anchored after", KeyTimes{Custody: wire.CustodyDevice, RevokedAt: at(1)}, "register", at(0), at(3),
			wire.KeyRuleRetiredAnchorTime, wire.KeyDecisionValid, "received this record at 2026-05-01T12:00:00.000Z, before that, and anchored it at 2026-05-01T12:03:00.000Z"},
		{"retired device key, received after", KeyTimes{Custody: wire.CustodyDevice, RevokedAt: at(1)}, "register", at(2), at(3),
			wire.KeyRuleRetiredAnchorTime, wire.KeyDecisionNotAuthentic, "after that, so it is not authentic"},
		{"retired device key, anchored before", KeyTimes{Custody: wire.CustodyDevice, RevokedAt: at(10)}, "register", at(0), at(5),
			wire.KeyRuleRetiredAnchorTime, wire.KeyDecisionValid, ""},
		{"retired service key, registered record, pending", KeyTimes{Custody: wire.CustodyService, RevokedAt: at(10)}, "register", at(0), zero,
			wire.KeyRuleRetiredAnchorTime, wire.KeyDecisionNotAuthentic, ""},
		{"device key, sign source claimed", KeyTimes{Custody: wire.CustodyDevice, RevokedAt: at(10)}, "sign", at(0), zero,
			wire.KeyRuleRetiredAnchorTime, wire.KeyDecisionNotAuthentic, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kr := DecideKey(tt.k, tt.source, tt.created, tt.anchored)
			if tt.rule == "" {
				if kr != nil {
					t.Fatalf("got %+v for an active key", kr)
				}
				return
			}
			if kr == nil || kr.Rule != tt.rule || kr.Decision != tt.decision || !strings.Contains(kr.Detail, tt.detailHas) {
				t.Fatalf("got %+v, want rule %s decision %s detail with %q", kr, tt.rule, tt.decision, tt.detailHas)
			}
			if kr.Valid() != (tt.decision == wire.KeyDecisionValid) {
				t.Errorf("Valid() = %v", kr.Valid())
			}
		})
	}
}

// TestDecideAppliesKeyRevocation: a lookup candidate whose record is
// active but whose signing key was revoked with compromised_since before
// its anchoring is not authentic from the lookup answer alone, and one
// anchored before stays authentic; both answers carry key_revocation.
func TestDecideAppliesKeyRevocation(t *testing.T) {
	for _, tt := range []struct {
		name      string
		since     string
		authentic bool
	}{
		{"compromised before anchoring", "2026-01-02T03:00:00Z", false},
		{"compromised after anchoring", "2026-01-03T00:00:00Z", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := candidate(t, id1, fileFacts.SHA256, "sign")
			w.AnchoredAt = "2026-01-02T03:10:00Z"
			w.SigningKey = &wire.SigningKeyState{Custody: wire.CustodyService, RevokedAt: "2026-01-04T00:00:00Z", CompromisedSince: tt.since, Reason: "stolen"}
			res := Decide(fileFacts, wire.LookupResponse{Candidates: []wire.LookupCandidate{w}}, limits.Default())
			v := res.Response
			if v.Authentic != tt.authentic || v.KeyRevocation == nil || v.KeyRevocation.Rule != wire.KeyRuleCompromised || res.Revoked == tt.authentic {
				t.Fatalf("authentic %v revoked %v key_revocation %+v, want authentic %v", v.Authentic, res.Revoked, v.KeyRevocation, tt.authentic)
			}
			if !tt.authentic && (v.Resembles == nil || v.Resembles.Relation != wire.RelationRevoked || !strings.Contains(v.Resembles.Detail, "compromised since")) {
				t.Errorf("resembles %+v, want the key revocation as the reason", v.Resembles)
			}
		})
	}
	w := candidate(t, id1, fileFacts.SHA256, "sign")
	w.SigningKey = &wire.SigningKeyState{Custody: wire.CustodyService, CompromisedSince: "2026-01-02T03:00:00Z"}
	if res := Decide(fileFacts, wire.LookupResponse{Candidates: []wire.LookupCandidate{w}}, limits.Default()); len(res.Rejected) != 1 || !res.Rejected[0].Dropped {
		t.Errorf("compromised_since without revoked_at: rejected %+v, want the candidate dropped", res.Rejected)
	}
}
