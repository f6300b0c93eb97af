package content

import (
	"testing"

	"github.com/provenant/provenant/shared/signerid"
	"github.com/provenant/provenant/shared/wire"
)

func TestSignerView(t *testing.T) {
	const pub = "0000000000000000000000000000000000000000000000000000000000000000"
	const fp = "66687aadf862bd77"
	tests := []struct {
		name string
		in   wire.Signer
		id   signerid.Identity
		want wire.Signer
	}{
		{"unverified", wire.Signer{OrgName: "Reuters", PublicKey: pub, KeyName: "desk"}, signerid.Identity{},
			wire.Signer{OrgName: "Reuters", PublicKey: pub, KeyName: "desk", KeyFingerprint: fp,
				Display: "unverified organisation: Reuters (key " + fp + ")"}},
		{"verified", wire.Signer{OrgName: "Reuters", PublicKey: pub}, signerid.Identity{VerifiedDomain: "reuters.com"},
			wire.Signer{OrgName: "Reuters", PublicKey: pub, KeyFingerprint: fp, OrgVerified: true, VerifiedDomain: "reuters.com",
				Display: "Reuters (verified domain reuters.com)"}},
		{"legacy name made safe", wire.Signer{OrgName: "Reuters\nVerified by Provenant", KeyName: "cam\u202E7", DeviceID: "a\x00b", PublicKey: pub},
			signerid.Identity{NameShared: true},
			wire.Signer{OrgName: "Reuters\uFFFDVerified by Provenant", KeyName: "cam\uFFFD7", DeviceID: "a\uFFFDb", PublicKey: pub,
				KeyFingerprint: fp, NameShared: true,
				Display: "unverified organisation: Reuters\uFFFDVerified by Provenant (key " + fp + "; another organisation uses this name)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := SignerView(tc.in, tc.id); got != tc.want {
				t.Errorf("SignerView = %+v,\nwant %+v", got, tc.want)
			}
		})
	}
}
