package record

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"

	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/merkle"
	"github.com/provenant/provenant/shared/rfc3339"
	"github.com/provenant/provenant/shared/wire"
)

// TimeFormat is how timestamps appear in the JSON API: RFC 3339 (ISO 8601)
// in UTC with milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// Anchor is the Merkle inclusion of a record's leaf ([Signed.LeafHash]) in an
// anchored batch, and where the batch root was written.
type Anchor struct {
	BatchID     string
	LeafIndex   uint64
	TreeSize    uint64
	AuditPath   []merkle.Hash
	Root        merkle.Hash
	TxHash      string
	BlockNumber uint64
	Network     string
	// ChainID is the EIP-155 chain id and BlockHash the 0x hex hash of
	// block BlockNumber; zero and empty when not known.
	ChainID   uint64
	BlockHash string
}

// Verify checks that leaf is included under a.Root.
func (a *Anchor) Verify(leaf merkle.Hash) error {
	return merkle.VerifyInclusion(a.LeafIndex, a.TreeSize, leaf, a.AuditPath, a.Root)
}

// Certificate is a signed record that anyone can check offline: the
// signature verifies under the key inside the record and, once anchored, the
// record's leaf is included under the batch root. Checking that the root is
// really in transaction TxHash needs a chain node and is not done here.
type Certificate struct {
	Signed Signed
	Anchor *Anchor // nil while pending
}

// Verify checks the signature and, if present, the anchor's inclusion proof,
// and returns the record. Errors wrap [ErrBadSignature], [ErrMalformed],
// merkle.ErrInvalidProof or are a *merkle.RootMismatchError.
func (c *Certificate) Verify() (*Record, error) {
	r, err := Verify(c.Signed)
	if err != nil {
		return nil, err
	}
	if c.Anchor != nil {
		if err := c.Anchor.Verify(c.Signed.LeafHash()); err != nil {
			return nil, fmt.Errorf("record %s anchor: %w", r.ID, err)
		}
	}
	return r, nil
}

// Wire returns the JSON form, with the spec's summary fields filled from the
// record. c must hold a parseable record.
func (c *Certificate) Wire() (wire.Certificate, error) {
	r, err := Parse(c.Signed.Bytes)
	if err != nil {
		return wire.Certificate{}, err
	}
	w := wire.Certificate{
		RecordID:        r.ID.String(),
		SHA256:          hex.EncodeToString(r.SHA256[:]),
		SignerPublicKey: hex.EncodeToString(r.SignerPublicKey),
		OrgName:         r.Org,
		Timestamp:       rfc3339.Millis(r.Timestamp),
		Record:          base64.StdEncoding.EncodeToString(c.Signed.Bytes),
		SignatureHex:    hex.EncodeToString(c.Signed.Signature),
	}
	if a := c.Anchor; a != nil {
		wa := &wire.Anchor{BatchID: a.BatchID, LeafIndex: a.LeafIndex, TreeSize: a.TreeSize,
			MerkleRoot: a.Root.String(), TxHash: a.TxHash, BlockNumber: a.BlockNumber, Network: a.Network,
			ChainID: a.ChainID, BlockHash: a.BlockHash, AuditPath: make([]string, len(a.AuditPath))}
		for i, h := range a.AuditPath {
			wa.AuditPath[i] = h.String()
		}
		w.Anchor = wa
	}
	return w, nil
}

// CertificateFromWire parses the JSON form and checks that its summary
// fields (record_id, sha256, signer_public_key, org_name, timestamp) agree
// with the signed record bytes. It does not verify the signature: call
// [Certificate.Verify].
func CertificateFromWire(w wire.Certificate, lim limits.Limits) (*Certificate, error) {
	b, err := base64.StdEncoding.DecodeString(w.Record)
	if err != nil {
		return nil, fmt.Errorf("%w: record: %w", ErrMalformed, err)
	}
	sig, err := hex.DecodeString(w.SignatureHex)
	if err != nil || len(sig) != SignatureSize {
		return nil, fmt.Errorf("%w: signature_hex", ErrMalformed)
	}
	c := &Certificate{Signed: Signed{Bytes: b, Signature: sig}}
	want, err := c.Wire()
	if err != nil {
		return nil, err
	}
	if w.RecordID != want.RecordID || w.SHA256 != want.SHA256 || w.SignerPublicKey != want.SignerPublicKey ||
		w.OrgName != want.OrgName || !sameInstant(w.Timestamp, want.Timestamp) {
		return nil, ErrCertificate
	}
	if wa := w.Anchor; wa != nil {
		if len(wa.AuditPath) > lim.MaxProofLen {
			return nil, fmt.Errorf("%w: audit path of %d hashes > %d", merkle.ErrInvalidProof, len(wa.AuditPath), lim.MaxProofLen)
		}
		a := &Anchor{BatchID: wa.BatchID, LeafIndex: wa.LeafIndex, TreeSize: wa.TreeSize, TxHash: wa.TxHash,
			BlockNumber: wa.BlockNumber, Network: wa.Network, ChainID: wa.ChainID, BlockHash: wa.BlockHash,
			AuditPath: make([]merkle.Hash, len(wa.AuditPath))}
		if a.Root, err = merkle.ParseHash(wa.MerkleRoot); err != nil {
			return nil, err
		}
		for i, s := range wa.AuditPath {
			if a.AuditPath[i], err = merkle.ParseHash(s); err != nil {
				return nil, err
			}
		}
		c.Anchor = a
	}
	return c, nil
}

func sameInstant(a, b string) bool {
	ta, err1 := rfc3339.Parse(a)
	tb, err2 := rfc3339.Parse(b)
	return err1 == nil && err2 == nil && ta.Equal(tb)
}
