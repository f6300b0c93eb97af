package content

import (
	"errors"
	"fmt"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/phash"
	"github.com/provenant/provenant/shared/record"
)

// EvidencePerceptualGeometry links a file to a record whose signed
// picture, cropped or slightly rotated as one of phash.GeometricEdits (and
// possibly mirrored or turned), has a near perceptual hash. The edited
// hashes are the service's computation on the signed picture, kept beside
// the record; the signature does not cover them. Look-before-mark uses
// this evidence; verification does not.
const EvidencePerceptualGeometry = "perceptual_geometry"

// Key layout of the geometric hashes (see keys.go):
//
//	rec/x/<id>   the signed picture's phash.Geometric hashes, 40 bytes each
//	rec/q/...    their index (phindex), read by look-before-mark only
const (
	pfxGeo      = "rec/x/"
	pfxGeoIndex = "rec/q/"
)

func geoKey(id string) []byte { return []byte(pfxGeo + id) }

// storeGeometric keeps the geometric hashes of record id's signed picture
// and indexes them, in the record's transaction.
func (s *Service) storeGeometric(tx store.Txn, id record.ID, hs []phash.Hash) error {
	b := make([]byte, 0, 40*len(hs))
	for _, h := range hs {
		b = append(b, h.Bytes()...)
	}
	if err := tx.Set(geoKey(id.String()), b); err != nil {
		return err
	}
	for _, h := range hs {
		if err := s.geoIndex().Add(tx, id, h); err != nil {
			return err
		}
	}
	return nil
}

// geoHashes returns the geometric hashes kept for record id (none for a
// registered record or one signed before they were kept).
func geoHashes(tx store.Txn, id string) ([]phash.Hash, error) {
	b, err := tx.Get(geoKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(b)%40 != 0 {
		return nil, fmt.Errorf("content: geometric hashes of %s: %d bytes", id, len(b))
	}
	hs := make([]phash.Hash, len(b)/40)
	for i := range hs {
		if hs[i], err = phash.FromBytes(b[40*i : 40*i+40]); err != nil {
			return nil, err
		}
	}
	return hs, nil
}

// geoMatch is the nearest of a record's geometric hashes to a file.
type geoMatch struct {
	// d256 is the distance (phash.Bits256+1 when none is kept); edit the
	// index in phash.GeometricEdits; query the index of the file's hash
	// that matched (0 the file as is, t the Dihedral variant t).
	d256, edit, query int
}

func noGeo() geoMatch { return geoMatch{d256: phash.Bits256 + 1} }

// nearestGeo compares the queries with the geometric hashes hs.
func nearestGeo(queries []phash.Hash, hs []phash.Hash) geoMatch {
	m := noGeo()
	for qi, q := range queries {
		for ei, h := range hs {
			if d := phash.Distance256(q.P256, h.P256); d < m.d256 {
				m = geoMatch{d256: d, edit: ei, query: qi}
			}
		}
	}
	return m
}

// describe says how the record's picture became the file: the mirror or
// turn (the inverse of the matching variant), then the edit.
func (m geoMatch) describe() string {
	edits := phash.GeometricEdits()
	s := ""
	if t := phash.Transform(m.query).Inverse(); t != phash.Identity {
		s = t.String() + ", "
	}
	if m.edit >= 0 && m.edit < len(edits) {
		s += edits[m.edit].String()
	}
	return s
}
