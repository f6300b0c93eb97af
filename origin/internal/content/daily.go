package content

import (
	"fmt"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
)

// Daily counters for the dashboard chart: records signed and verifications
// per owner and UTC day, bumped in the transactions that count the totals
// (verifications over the same shards as the total).
const (
	pfxDaySigned   = "rec/ds/"
	pfxDayVerified = "rec/dv/"
	// DailyDays is how many days Stats' Daily series covers, today included.
	DailyDays = 30
)

// DayCount is one day of an owner's activity.
type DayCount struct {
	// Date is the UTC day, YYYY-MM-DD.
	Date     string
	Signed   uint64
	Verified uint64
}

func dayKey(pfx, owner string, day time.Time) []byte {
	return []byte(pfx + owner + "/" + day.UTC().Format(time.DateOnly))
}

func addCount(tx store.Txn, k []byte) error {
	n, err := store.GetUint64(tx, k)
	if err != nil {
		return err
	}
	return store.PutUint64(tx, k, n+1)
}

// bumpDaySigned counts one record signed by owner on day at, in the
// record's counter shard.
func bumpDaySigned(tx store.Txn, owner string, at time.Time, shard int) error {
	return addCount(tx, fmt.Appendf(dayKey(pfxDaySigned, owner, at), "/%d", shard))
}

// bumpDayVerified counts one verification of owner's content on day at.
func bumpDayVerified(tx store.Txn, owner string, at time.Time, shard int) error {
	return addCount(tx, fmt.Appendf(dayKey(pfxDayVerified, owner, at), "/%d", shard))
}

// readDaily returns owner's last DailyDays days up to today, oldest first.
func readDaily(tx store.Txn, owner string, today time.Time) ([]DayCount, error) {
	out := make([]DayCount, 0, DailyDays)
	for i := DailyDays - 1; i >= 0; i-- {
		day := today.UTC().AddDate(0, 0, -i)
		d := DayCount{Date: day.Format(time.DateOnly)}
		var err error
		// The unsharded key of earlier versions, then the shards.
		if d.Signed, err = store.GetUint64(tx, dayKey(pfxDaySigned, owner, day)); err != nil {
			return nil, err
		}
		for sh := 0; sh < counterShards; sh++ {
			n, err := store.GetUint64(tx, fmt.Appendf(dayKey(pfxDaySigned, owner, day), "/%d", sh))
			if err != nil {
				return nil, err
			}
			d.Signed += n
		}
		for sh := 0; sh < verifiedShards; sh++ {
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
