package content

import (
	"context"
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
// under one key per owner are summed with the shards, and two records
// land in the shard of their ids.
func TestCountersSumShardsAndEarlierKey(t *testing.T) {
	st := storetest.Badger(t)
	day := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	ids := []string{"rec-a", "rec-b", "rec-c"}
	err := st.Update(context.Background(), func(tx store.Txn) error {
		if err := store.PutJSON(tx, countKey("acct"), counters{Signed: 5, Anchored: 4, Revoked: 1}); err != nil {
			return err
		}
		if err := addCount(tx, dayKey(pfxDaySigned, "acct", day)); err != nil {
			return err
		}
		for _, id := range ids {
			if err := bumpDaySigned(tx, "acct", day, counterShard(id)); err != nil {
				return err
			}
			if err := bumpCounters(tx, "acct", id, func(c *counters) { c.Signed++; c.Anchored++ }); err != nil {
				return err
			}
		}
		return bumpCounters(tx, "other", "rec-z", func(c *counters) { c.Signed++ })
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = st.View(context.Background(), func(tx store.Txn) error {
		c, err := readCounters(tx, "acct")
		if err != nil || c != (counters{Signed: 8, Anchored: 7, Revoked: 1}) {
			t.Errorf("readCounters = %+v, %v; want signed 8, anchored 7, revoked 1", c, err)
		}
		d, err := readDaily(tx, "acct", day)
		if err != nil || d[len(d)-1].Signed != 4 {
			t.Errorf("today's signed = %+v, %v; want 4", d[len(d)-1], err)
		}
		if _, err := tx.Get(countShardKey("acct", counterShard("rec-a"))); err != nil {
			t.Errorf("rec-a's shard key: %v", err)
		}
		return nil
	})
}
