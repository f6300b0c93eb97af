package content

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/provenant/provenant/origin/internal/content/counters"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/shared/record"
)

// Key layout (all under "rec/"):
//
//	rec/r/<id>                          Record JSON
//	rec/s/<sha256 hex>/<id>             "s" (signed file) or "o" (original upload)
//	rec/w/<payload hex>                 id
//	rec/o/<owner>/<nanos hex>/<id>      owner list, creation order
//	rec/n/<owner>/<^nanos hex>/<id>     owner list, newest first (recent records)
//	rec/t/<nanos hex>/<id>              public registry, creation order
//	rec/g/<org lower>/<nanos hex>/<id>  public registry by organisation
//	rec/c/, rec/v/, rec/ds/, rec/dv/    dashboard counts (counters)
//	rec/p/...                           perceptual index (phindex)
const (
	pfxRecord  = "rec/r/"
	pfxSHA     = "rec/s/"
	pfxPayload = "rec/w/"
	pfxOwner   = "rec/o/"
	pfxRecent  = "rec/n/"
	pfxTime    = "rec/t/"
	pfxOrg     = "rec/g/"
	pfxPHash   = "rec/p/"
)

func recordKey(id string) []byte       { return []byte(pfxRecord + id) }
func shaKey(sha, id string) []byte     { return []byte(pfxSHA + sha + "/" + id) }
func shaPrefix(sha string) []byte      { return []byte(pfxSHA + sha + "/") }
func payloadKey(p string) []byte       { return []byte(pfxPayload + p) }
func ownerPrefix(owner string) []byte  { return []byte(pfxOwner + owner + "/") }
func recentPrefix(owner string) []byte { return []byte(pfxRecent + owner + "/") }
func orgPrefix(org string) []byte      { return []byte(pfxOrg + strings.ToLower(org) + "/") }
func timeSuffix(t time.Time, id string) string {
	return fmt.Sprintf("%016x/%s", uint64(t.UnixNano()), id)
}
func recentSuffix(t time.Time, id string) string {
	return fmt.Sprintf("%016x/%s", ^uint64(t.UnixNano()), id)
}

func getRecord(tx store.Txn, id string) (*Record, error) {
	r, err := store.GetJSONOr[Record](tx, recordKey(id), ErrNotFound, "content: record "+id)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// insert writes r and all its indexes. It refuses (ErrDuplicate) an id or
// a watermark payload that exists already.
func (s *Service) insert(tx store.Txn, r *Record, rec *record.Record) error {
	if _, err := tx.Get(recordKey(r.ID)); err == nil {
		return fmt.Errorf("%w: record id %s exists", ErrDuplicate, r.ID)
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if r.WatermarkPayloadHex != "" {
		if _, err := tx.Get(payloadKey(r.WatermarkPayloadHex)); err == nil {
			return fmt.Errorf("%w: watermark payload %s is in use", ErrDuplicate, r.WatermarkPayloadHex)
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err := tx.Set(payloadKey(r.WatermarkPayloadHex), []byte(r.ID)); err != nil {
			return err
		}
	}
	if err := store.PutJSON(tx, recordKey(r.ID), r); err != nil {
		return err
	}
	if err := tx.Set(shaKey(r.SHA256, r.ID), []byte("s")); err != nil {
		return err
	}
	if r.OriginalSHA256 != "" && r.OriginalSHA256 != r.SHA256 {
		if err := tx.Set(shaKey(r.OriginalSHA256, r.ID), []byte("o")); err != nil {
			return err
		}
	}
	for _, k := range [][]byte{
		append(ownerPrefix(r.Owner), timeSuffix(r.CreatedAt, r.ID)...),
		append(recentPrefix(r.Owner), recentSuffix(r.CreatedAt, r.ID)...),
		[]byte(pfxTime + timeSuffix(r.CreatedAt, r.ID)),
		append(orgPrefix(r.Signer.OrgName), timeSuffix(r.CreatedAt, r.ID)...),
	} {
		if err := tx.Set(k, nil); err != nil {
			return err
		}
	}
	if err := s.phindex().Add(tx, rec.ID, rec.PerceptualHash); err != nil {
		return err
	}
	return counters.BumpSigned(tx, r.Owner, r.ID, r.CreatedAt)
}
