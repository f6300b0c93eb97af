// Package counters keeps an account's dashboard counts of its content
// records: records signed, anchored and revoked, verifications of them,
// and both per UTC day for the chart. Every count is bumped inside the
// transaction that causes it (the caller's), so a count never disagrees
// with the records it counts; counts are spread over shards so that
// concurrent signs or verifications of one account, on one origin or on
// several sharing a store, rarely update the same key.
//
// It sits below content and knows nothing of records but their ids.
//
// Key layout:
//
//	rec/c/<owner>/<shard>               Totals JSON (shard of the record id; rec/c/<owner>, of earlier versions, is still read)
//	rec/v/<owner>/<shard>               verifications (8 bytes)
//	rec/ds/<owner>/<YYYY-MM-DD>/<shard> records signed that day (rec/ds/<owner>/<day>, of earlier versions, is still read)
//	rec/dv/<owner>/<YYYY-MM-DD>/<shard> verifications that day
package counters

import (
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
)

const (
	pfxCount       = "rec/c/"
	pfxVerif       = "rec/v/"
	pfxDaySigned   = "rec/ds/"
	pfxDayVerified = "rec/dv/"
	// recordShards spreads an owner's counts of records (signed,
	// anchored, revoked, and signed per day): a record's counts always go
	// to the shard of its id. The single key of earlier versions is still
	// read and summed, never written.
	recordShards = 8
	// VerifiedShards spreads an owner's verification counts: a
	// verification is counted in the shard its caller picks, below this.
	VerifiedShards = 8
	// DailyDays is how many days ReadDaily covers, today included.
	DailyDays = 30
)

// Totals are an owner's counts of records signed, anchored and revoked.
// Their JSON form is what the store keeps.
type Totals struct {
	Signed   uint64 `json:"signed"`
	Anchored uint64 `json:"anchored"`
	Revoked  uint64 `json:"revoked"`
}

// DayCount is one day of an owner's activity.
type DayCount struct {
	// Date is the UTC day, YYYY-MM-DD.
	Date     string
	Signed   uint64
	Verified uint64
}

func totalsKey(owner string) []byte { return []byte(pfxCount + owner) }
func totalsShardKey(owner string, shard int) []byte {
	return fmt.Appendf(nil, "%s%s/%d", pfxCount, owner, shard)
}
func verifKey(owner string, shard int) []byte {
	return fmt.Appendf(nil, "%s%s/%d", pfxVerif, owner, shard)
}
func dayKey(pfx, owner string, day time.Time) []byte {
	return []byte(pfx + owner + "/" + day.UTC().Format(time.DateOnly))
}

// Shard is the shard of record id's counts.
func Shard(id string) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % recordShards)
}

// Bump applies fn to owner's totals in the shard of record id, in tx
// (anchored and revoked records; BumpSigned counts a signed one).
func Bump(tx store.Txn, owner, id string, fn func(*Totals)) error {
	k := totalsShardKey(owner, Shard(id))
	c, err := store.GetJSON[Totals](tx, k)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	fn(&c)
	return store.PutJSON(tx, k, c)
}

// Read returns owner's totals: the sum of its shards and of the
// unsharded key of earlier versions.
func Read(tx store.Txn, owner string) (Totals, error) {
	var sum Totals
	for i := -1; i < recordShards; i++ {
		k := totalsKey(owner)
		if i >= 0 {
			k = totalsShardKey(owner, i)
		}
		c, err := store.GetJSON[Totals](tx, k)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return Totals{}, err
		}
		sum.Signed += c.Signed
		sum.Anchored += c.Anchored
		sum.Revoked += c.Revoked
	}
	return sum, nil
}

// ReadVerified returns the number of verifications of owner's content.
func ReadVerified(tx store.Txn, owner string) (uint64, error) {
	var n uint64
	for i := 0; i < VerifiedShards; i++ {
		c, err := store.GetUint64(tx, verifKey(owner, i))
		if err != nil {
			return 0, err
		}
		n += c
	}
	return n, nil
}

// BumpSigned counts one record id signed by owner at at: in the day's
// count and in the totals, both in the record's shard.
func BumpSigned(tx store.Txn, owner, id string, at time.Time) error {
	if err := addCount(tx, fmt.Appendf(dayKey(pfxDaySigned, owner, at), "/%d", Shard(id))); err != nil {
		return err
	}
	return Bump(tx, owner, id, func(c *Totals) { c.Signed++ })
}

// BumpVerified counts one verification of owner's content at at, in its
// total and in the day's count, both in shard (below VerifiedShards).
func BumpVerified(tx store.Txn, owner string, at time.Time, shard int) error {
	if err := addCount(tx, verifKey(owner, shard)); err != nil {
		return err
	}
	return addCount(tx, fmt.Appendf(dayKey(pfxDayVerified, owner, at), "/%d", shard))
}

func addCount(tx store.Txn, k []byte) error {
	n, err := store.GetUint64(tx, k)
	if err != nil {
		return err
	}
	return store.PutUint64(tx, k, n+1)
}

// ReadDaily returns owner's last DailyDays UTC days up to today, oldest
// first, every day present (zero counts included).
func ReadDaily(tx store.Txn, owner string, today time.Time) ([]DayCount, error) {
	out := make([]DayCount, 0, DailyDays)
	for i := DailyDays - 1; i >= 0; i-- {
		day := today.UTC().AddDate(0, 0, -i)
		d := DayCount{Date: day.Format(time.DateOnly)}
		var err error
		// The unsharded key of earlier versions, then the shards.
		if d.Signed, err = store.GetUint64(tx, dayKey(pfxDaySigned, owner, day)); err != nil {
			return nil, err
		}
		for sh := 0; sh < recordShards; sh++ {
			n, err := store.GetUint64(tx, fmt.Appendf(dayKey(pfxDaySigned, owner, day), "/%d", sh))
			if err != nil {
				return nil, err
			}
			d.Signed += n
		}
		for sh := 0; sh < VerifiedShards; sh++ {
			n, err := store.GetUint64(tx, fmt.Appendf(dayKey(pfxDayVerified, owner, day), "/%d", sh))
			if err != nil {
				return nil, err
			}
			d.Verified += n
		}
		out = append(out, d)
	}
	return out, nil
}
