package metrics

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/provenant/provenant/origin/internal/anchor"
)

// failingChain answers every call with n (or its kind of value) and err.
type failingChain struct {
	anchor.Chain
	n   uint64
	err error
}

func (f failingChain) Head(context.Context) (uint64, error)         { return f.n, f.err }
func (f failingChain) PendingNonce(context.Context) (uint64, error) { return f.n, f.err }
func (f failingChain) Finalized(context.Context) (uint64, error)    { return f.n, f.err }
func (f failingChain) Broadcast(context.Context, []byte) error      { return f.err }
func (f failingChain) Sync(context.Context) error                   { return f.err }
func (f failingChain) Transaction(context.Context, anchor.Hash) (anchor.AnchorTx, error) {
	return anchor.AnchorTx{BlockNumber: f.n}, f.err
}
func (f failingChain) SuggestFees(context.Context) (anchor.Fees, error) {
	return anchor.Fees{}, f.err
}
func (f failingChain) SignRoot(context.Context, anchor.Hash, uint64, anchor.Fees) (anchor.SignedTx, error) {
	return anchor.SignedTx{}, f.err
}
func (f failingChain) Receipt(context.Context, anchor.Hash) (anchor.Inclusion, error) {
	return anchor.Inclusion{BlockNumber: f.n}, f.err
}

// TestChainCountsFailures: every wrapped call passes the chain's answer
// through unchanged and counts a failure under its method and kind, and
// the answers of normal operation are not counted.
func TestChainCountsFailures(t *testing.T) {
	ctx := context.Background()
	calls := map[string]func(anchor.Chain) (uint64, error){
		"head":          func(c anchor.Chain) (uint64, error) { return c.Head(ctx) },
		"pending_nonce": func(c anchor.Chain) (uint64, error) { return c.PendingNonce(ctx) },
		"finalized":     func(c anchor.Chain) (uint64, error) { return c.Finalized(ctx) },
		"broadcast":     func(c anchor.Chain) (uint64, error) { return 7, c.Broadcast(ctx, nil) },
		"sync":          func(c anchor.Chain) (uint64, error) { return 7, c.Sync(ctx) },
		"suggest_fees": func(c anchor.Chain) (uint64, error) {
			_, err := c.SuggestFees(ctx)
			return 7, err
		},
		"sign_root": func(c anchor.Chain) (uint64, error) {
			_, err := c.SignRoot(ctx, anchor.Hash{}, 0, anchor.Fees{})
			return 7, err
		},
		"transaction": func(c anchor.Chain) (uint64, error) {
			tx, err := c.Transaction(ctx, anchor.Hash{})
			return tx.BlockNumber, err
		},
		"receipt": func(c anchor.Chain) (uint64, error) {
			inc, err := c.Receipt(ctx, anchor.Hash{})
			return inc.BlockNumber, err
		},
	}
	kinds := []struct {
		err  error
		kind string // "": not counted
	}{
		{nil, ""},
		{anchor.ErrNotIncluded, ""},
		{anchor.ErrNoFinality, ""},
		{context.Canceled, ""},
		{fmt.Errorf("send: %w", anchor.ErrNonceTooLow), "nonce_too_low"},
		{anchor.ErrUnderpriced, "underpriced"},
		{errors.New("connection refused"), "error"},
	}
	for method, call := range calls {
		for _, k := range kinds {
			m, err := New(prometheus.NewRegistry(), Sources{})
			if err != nil {
				t.Fatal(err)
			}
			n, err := call(m.Chain(failingChain{n: 7, err: k.err}))
			if n != 7 || !errors.Is(err, k.err) || (k.err == nil) != (err == nil) {
				t.Errorf("%s with %v: answered %d, %v; want 7, %v", method, k.err, n, err, k.err)
			}
			want := 0
			if k.kind != "" {
				want = 1
				if got := testutil.ToFloat64(m.chainErrors.WithLabelValues(method, k.kind)); got != 1 {
					t.Errorf("%s with %v: chain_rpc_errors_total{method=%s,kind=%s} = %v, want 1", method, k.err, method, k.kind, got)
				}
			}
			if got := testutil.CollectAndCount(m.chainErrors); got != want {
				t.Errorf("%s with %v: %d error series, want %d", method, k.err, got, want)
			}
		}
	}
}
