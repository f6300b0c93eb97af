package counters

import (
	"fmt"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/storetest"
)

func TestDayKeyIsUTCDay(t *testing.T) {
	loc := time.FixedZone("UTC+10", 10*3600)
	tests := []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 3, 4, 23, 59, 59, 0, time.UTC), "rec/ds/acct/2026-03-04"},
		{time.Date(2026, 3, 5, 5, 0, 0, 0, loc), "rec/ds/acct/2026-03-04"},
		{time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC), "rec/ds/acct/2026-03-05"},
	}
	for _, tc := range tests {
		if got := string(dayKey(pfxDaySigned, "acct", tc.at)); got != tc.want {
			t.Errorf("dayKey(%v) = %q, want %q", tc.at, got, tc.want)
		}
	}
}

// TestCountersSumShardsAndEarlierKey: counts written by earlier versions
// under one key per owner are summed with the shards, records land in
// the shard of their ids, one owner's counts are not another's, and
// verifications are counted in the total and the day in the shard given.
func TestCountersSumShardsAndEarlierKey(t *testing.T) {
	st := storetest.Badger(t)
	day := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	ids := []string{"rec-a", "rec-b", "rec-c"}
	err := st.Update(t.Context(), func(tx store.Txn) error {
		if err := store.PutJSON(tx, totalsKey("acct"), Totals{Signed: 5, Anchored: 4, Revoked: 1}); err != nil {
			return err
		}
		if err := addCount(tx, dayKey(pfxDaySigned, "acct", day)); err != nil {
			return err
		}
		for _, id := range ids {
			if err := BumpSigned(tx, "acct", id, day); err != nil {
				return err
			}
			if err := Bump(tx, "acct", id, func(c *Totals) { c.Anchored++ }); err != nil {
				return err
			}
		}
		for shard := range VerifiedShards {
			if err := BumpVerified(tx, "acct", day.AddDate(0, 0, -1), shard); err != nil {
				return err
			}
		}
		if err := BumpVerified(tx, "other", day, 0); err != nil {
			return err
		}
		return BumpSigned(tx, "other", "rec-z", day)
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = st.View(t.Context(), func(tx store.Txn) error {
		c, err := Read(tx, "acct")
		if err != nil || c != (Totals{Signed: 8, Anchored: 7, Revoked: 1}) {
			t.Errorf("Read = %+v, %v; want signed 8, anchored 7, revoked 1", c, err)
		}
		if v, err := ReadVerified(tx, "acct"); err != nil || v != VerifiedShards {
			t.Errorf("ReadVerified = %d, %v; want %d", v, err, VerifiedShards)
		}
		d, err := ReadDaily(tx, "acct", day)
		if err != nil || len(d) != DailyDays {
			t.Fatalf("ReadDaily = %d days, %v; want %d", len(d), err, DailyDays)
		}
		if got, want := fmt.Sprint(d[len(d)-2:]), "[{2026-03-03 0 8} {2026-03-04 4 0}]"; got != want {
			t.Errorf("the last two days read %s, want %s", got, want)
		}
		if _, err := tx.Get(totalsShardKey("acct", Shard("rec-a"))); err != nil {
			t.Errorf("rec-a's shard key: %v", err)
		}
		return nil
	})
}
