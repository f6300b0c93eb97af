package metrics

import (
	"context"
	"errors"

	"github.com/provenant/provenant/origin/internal/anchor"
)

// Chain wraps an anchor.Chain and counts its failed calls in
// provenant_chain_rpc_errors_total. Answers that are part of normal
// operation (not included yet, no finality, the caller's cancellation) are
// not counted.
func (m *Metrics) Chain(c anchor.Chain) anchor.Chain { return &chain{Chain: c, m: m} }

type chain struct {
	anchor.Chain
	m *Metrics
}

func (c *chain) count(method string, err error) {
	switch {
	case err == nil, errors.Is(err, anchor.ErrNotIncluded), errors.Is(err, anchor.ErrNoFinality),
		errors.Is(err, context.Canceled):
		return
	case errors.Is(err, anchor.ErrNonceTooLow):
		c.m.chainErrors.WithLabelValues(method, "nonce_too_low").Inc()
	case errors.Is(err, anchor.ErrUnderpriced):
		c.m.chainErrors.WithLabelValues(method, "underpriced").Inc()
	default:
		c.m.chainErrors.WithLabelValues(method, "error").Inc()
	}
}

// counted returns a function that counts err under method and passes the
// call's answer through, so each method is one line: counted[T](c,
// "name")(c.Chain.Method(...)).
func counted[T any](c *chain, method string) func(T, error) (T, error) {
	return func(v T, err error) (T, error) {
		c.count(method, err)
		return v, err
	}
}

func (c *chain) Head(ctx context.Context) (uint64, error) {
	return counted[uint64](c, "head")(c.Chain.Head(ctx))
}

func (c *chain) Transaction(ctx context.Context, h anchor.Hash) (anchor.AnchorTx, error) {
	return counted[anchor.AnchorTx](c, "transaction")(c.Chain.Transaction(ctx, h))
}

func (c *chain) PendingNonce(ctx context.Context) (uint64, error) {
	return counted[uint64](c, "pending_nonce")(c.Chain.PendingNonce(ctx))
}

func (c *chain) SuggestFees(ctx context.Context) (anchor.Fees, error) {
	return counted[anchor.Fees](c, "suggest_fees")(c.Chain.SuggestFees(ctx))
}

func (c *chain) Finalized(ctx context.Context) (uint64, error) {
	return counted[uint64](c, "finalized")(c.Chain.Finalized(ctx))
}

func (c *chain) SignRoot(ctx context.Context, root anchor.Hash, nonce uint64, fees anchor.Fees) (anchor.SignedTx, error) {
	return counted[anchor.SignedTx](c, "sign_root")(c.Chain.SignRoot(ctx, root, nonce, fees))
}

func (c *chain) Broadcast(ctx context.Context, raw []byte) error {
	err := c.Chain.Broadcast(ctx, raw)
	c.count("broadcast", err)
	return err
}

func (c *chain) Receipt(ctx context.Context, h anchor.Hash) (anchor.Inclusion, error) {
	return counted[anchor.Inclusion](c, "receipt")(c.Chain.Receipt(ctx, h))
}

func (c *chain) Sync(ctx context.Context) error {
	err := c.Chain.Sync(ctx)
	c.count("sync", err)
	return err
}
