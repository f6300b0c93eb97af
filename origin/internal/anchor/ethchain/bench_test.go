package ethchain_test

import (
	"context"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/store"
)

// BenchmarkAnchorEndToEnd: records per second from enqueue (in store
// transactions of 100 records, as a sign-batch would) to every record
// anchored on the embedded chain (batches of 1,000, 1 confirmation).
// Signing is excluded. One op = 10,000 records.
func BenchmarkAnchorEndToEnd(b *testing.B) {
	const records = 10_000
	ctx := context.Background()
	o, err := openOrigin(ctx, b.TempDir(), "", "", 1000, crashPoints{})
	if err != nil {
		b.Fatal(err)
	}
	defer o.close()
	next := 0
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		for from := next; from < next+records; from += 100 {
			err := o.st.Update(ctx, func(txn store.Txn) error {
				for i := from; i < from+100; i++ {
					if err := o.b.Enqueue(txn, anchor.Entry{RecordID: recordName(i), LeafHash: recordLeaf(i)}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		next += records
		if err := o.runUntilAnchored(ctx, next, time.Minute); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(next)/total.Seconds(), "records/s")
}

// BenchmarkVerifyEmbedded: anchor.Verify of one record against the embedded
// chain, including reading the transaction, its receipt, the canonical
// header and the head over in-process RPC.
func BenchmarkVerifyEmbedded(b *testing.B) {
	ctx := context.Background()
	o := anchoredOrigin(b, 1000)
	p, err := o.b.Proof(ctx, recordName(377))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if res, err := anchor.Verify(ctx, o.chain, recordLeaf(377), p, 1); err != nil || !res.Passed() {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkProof: building a record's proof from the store (tree cached
// after the first call), as the record detail and certificate endpoints do.
func BenchmarkProof(b *testing.B) {
	ctx := context.Background()
	o := anchoredOrigin(b, 1000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := o.b.Proof(ctx, recordName(i%1000)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// anchoredOrigin opens an origin on the embedded chain (batches of 1,000,
// closed when b ends) with records 0..n-1 enqueued and anchored.
func anchoredOrigin(b *testing.B, n int) *origin {
	b.Helper()
	ctx := context.Background()
	o, err := openOrigin(ctx, b.TempDir(), "", "", 1000, crashPoints{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(o.close)
	if err := o.enqueue(ctx, n); err != nil {
		b.Fatal(err)
	}
	if err := o.runUntilAnchored(ctx, n, time.Minute); err != nil {
		b.Fatal(err)
	}
	return o
}
