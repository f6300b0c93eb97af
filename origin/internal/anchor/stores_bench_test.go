package anchor_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/store/pgstore/pgtest"
	"github.com/provenant/provenant/origin/internal/store/storetest"
)

// BenchmarkCloseBatchStores measures closing a full batch (4,096 queued
// records read and deleted, a record entry per leaf, the tree's leaves and
// ids: one transaction) on Badger and on PostgreSQL, in one run: ns/op
// is one batch of anchor.MaxBatchSize records. Queueing is not timed.
func BenchmarkCloseBatchStores(b *testing.B) {
	cluster := pgtest.Start(b)
	backends := []struct {
		name string
		open func(b *testing.B) store.Store
	}{
		{"badger", func(b *testing.B) store.Store { return storetest.Badger(b) }},
		{"postgres", func(b *testing.B) store.Store {
			return pgtest.Open(b, cluster.NewDatabase())
		}},
	}
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			st := be.open(b)
			bt, err := anchor.New(anchor.Config{Store: st, Chain: newFakeChain(), BatchSize: anchor.MaxBatchSize, BatchInterval: time.Hour})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			next := 0
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				err := st.Update(ctx, func(txn store.Txn) error {
					for range anchor.MaxBatchSize {
						e := anchor.Entry{RecordID: fmt.Sprintf("rec-%08d", next), LeafHash: leafOf(next), AccountID: "acct"}
						next++
						if err := bt.Enqueue(txn, e); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if ok, err := bt.Flush(ctx); !ok || err != nil {
					b.Fatalf("Flush = %v, %v", ok, err)
				}
			}
		})
	}
}
