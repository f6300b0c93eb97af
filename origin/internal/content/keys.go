package content

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

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
//	rec/c/<owner>/<shard>               counters JSON (shard 0..7 by record id; rec/c/<owner>, of earlier versions, is still read)
//	rec/v/<owner>/<shard>               verification counter shard (8 bytes)
//	rec/p/...                           perceptual index (phindex)
const (
	pfxRecord  = "rec/r/"
	pfxSHA     = "rec/s/"
	pfxPayload = "rec/w/"
	pfxOwner   = "rec/o/"
	pfxRecent  = "rec/n/"
	pfxTime    = "rec/t/"
	pfxOrg     = "rec/g/"
	pfxCount   = "rec/c/"
	pfxVerif   = "rec/v/"
	pfxPHash   = "rec/p/"
	// verifiedShards spreads total_verified over several keys so that
	// concurrent verifications of one owner's content rarely conflict.
	verifiedShards = 8
	// counterShards does the same for an owner's other dashboard counters
	// (signed, anchored, revoked, and signed per day): concurrent signs of
	// one account, on one origin or on several sharing a store, then
	// rarely update the same key. A record's counts always go to the shard
	// of its id. The single key of earlier versions is still read and
	// summed, never written.
	counterShards = 8
)

func recordKey(id string) []byte       { return []byte(pfxRecord + id) }
func shaKey(sha, id string) []byte     { return []byte(pfxSHA + sha + "/" + id) }
func shaPrefix(sha string) []byte      { return []byte(pfxSHA + sha + "/") }
func payloadKey(p string) []byte       { return []byte(pfxPayload + p) }
func ownerPrefix(owner string) []byte  { return []byte(pfxOwner + owner + "/") }
func recentPrefix(owner string) []byte { return []byte(pfxRecent + owner + "/") }
func orgPrefix(org string) []byte      { return []byte(pfxOrg + strings.ToLower(org) + "/") }
func countKey(owner string) []byte     { return []byte(pfxCount + owner) }
func countShardKey(owner string, shard int) []byte {
	return fmt.Appendf(nil, "%s%s/%d", pfxCount, owner, shard)
}

// counterShard is the counter shard of record id.
func counterShard(id string) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % counterShards)
}
func verifKey(owner string, shard int) []byte {
	return fmt.Appendf(nil, "%s%s/%d", pfxVerif, owner, shard)
}
func timeSuffix(t time.Time, id string) string {
	return fmt.Sprintf("%016x/%s", uint64(t.UnixNano()), id)
}
func recentSuffix(t time.Time, id string) string {
	return fmt.Sprintf("%016x/%s", ^uint64(t.UnixNano()), id)
}

// counters are the owner's dashboard counters, updated in the transactions
// that change them.
type counters struct {
	Signed   uint64 `json:"signed"`
	Anchored uint64 `json:"anchored"`
	Revoked  uint64 `json:"revoked"`
}

func getRecord(tx store.Txn, id string) (*Record, error) {
	r, err := store.GetJSONOr[Record](tx, recordKey(id), ErrNotFound, "content: record "+id)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// bumpCounters applies fn to owner's counter shard of record id.
func bumpCounters(tx store.Txn, owner, id string, fn func(*counters)) error {
	k := countShardKey(owner, counterShard(id))
	c, err := store.GetJSON[counters](tx, k)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	fn(&c)
	return store.PutJSON(tx, k, c)
}

// readCounters sums owner's counter shards and the unsharded key of
// earlier versions.
func readCounters(tx store.Txn, owner string) (counters, error) {
	var sum counters
	for i := -1; i < counterShards; i++ {
		k := countKey(owner)
		if i >= 0 {
			k = countShardKey(owner, i)
		}
		c, err := store.GetJSON[counters](tx, k)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return counters{}, err
		}
		sum.Signed += c.Signed
		sum.Anchored += c.Anchored
		sum.Revoked += c.Revoked
	}
	return sum, nil
}

func readVerified(tx store.Txn, owner string) (uint64, error) {
	var n uint64
	for i := 0; i < verifiedShards; i++ {
		c, err := store.GetUint64(tx, verifKey(owner, i))
		if err != nil {
			return 0, err
		}
		n += c
	}
	return n, nil
}

func bumpVerified(tx store.Txn, owner string, shard int) error {
	return addCount(tx, verifKey(owner, shard))
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
	if err := bumpDaySigned(tx, r.Owner, r.CreatedAt, counterShard(r.ID)); err != nil {
		return err
	}
	return bumpCounters(tx, r.Owner, r.ID, func(c *counters) { c.Signed++ })
}
