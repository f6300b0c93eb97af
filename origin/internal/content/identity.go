package content

import (
	"context"

	"github.com/provenant/provenant/origin/internal/validate"
	"github.com/provenant/provenant/shared/signerid"
	"github.com/provenant/provenant/shared/wire"
)

// Identities is what records need to say who a signer is
// (*domains.Service implements it).
type Identities interface {
	// SignerIdentity returns the verified domain of account, if any, and
	// whether another account's organisation name looks like orgName.
	SignerIdentity(ctx context.Context, account, orgName string) (signerid.Identity, error)
}

// Identify fills the display members of each record's Signer
// (docs/verification.md, "Who a signer is"): the key fingerprint, the
// verified domain of the signing account, whether its name is shared, and
// the Display line; the declared names are made display-safe
// (validate.SafeDisplay) for records stored before the name rules. When
// the identity cannot be read the organisation is shown unverified: a
// failure never upgrades a claim.
func (s *Service) Identify(ctx context.Context, rs ...*Record) {
	seen := map[[2]string]signerid.Identity{}
	for _, r := range rs {
		if r == nil {
			continue
		}
		k := [2]string{r.Owner, r.Signer.OrgName}
		id, ok := seen[k]
		if !ok && s.cfg.Identities != nil {
			var err error
			id, err = s.cfg.Identities.SignerIdentity(ctx, r.Owner, r.Signer.OrgName)
			if err != nil {
				s.log.Warn("signer identity unavailable", "record_id", r.ID, "err", err)
				id = signerid.Identity{}
			}
			seen[k] = id
		}
		r.Signer = SignerView(r.Signer, id)
	}
}

// SignerView returns sg with its display members set from id.
func SignerView(sg wire.Signer, id signerid.Identity) wire.Signer {
	sg.OrgName = validate.SafeDisplay(sg.OrgName)
	sg.KeyName = validate.SafeDisplay(sg.KeyName)
	sg.DeviceID = validate.SafeDisplay(sg.DeviceID)
	sg.KeyFingerprint = signerid.Fingerprint(sg.PublicKey)
	sg.OrgVerified = id.VerifiedDomain != ""
	sg.VerifiedDomain = id.VerifiedDomain
	sg.NameShared = id.NameShared
	sg.Display = signerid.Display(sg.OrgName, sg.KeyFingerprint, id)
	return sg
}

// declaredOrigin returns the wire origin of an origin type code as the
// signer declared it: every origin type comes from the signing key's (or a
// registration's) own statement, so it is labelled as declared.
func declaredOrigin(o wire.Origin) *wire.Origin {
	o.Declared = true
	return &o
}
