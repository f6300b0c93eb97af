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

func (c *chain) Head(ctx context.Context) (uint64, error) {
	n, err := c.Chain.Head(ctx)
	c.count("head", err)
	return n, err
}

func (c *chain) Transaction(ctx context.Context, h anchor.Hash) (anchor.AnchorTx, error) {
	tx, err := c.Chain.Transaction(ctx, h)
	c.count("transaction", err)
	return tx, err
}

func (c *chain) PendingNonce(ctx context.Context) (uint64, error) {
	n, err := c.Chain.PendingNonce(ctx)
	c.count("pending_nonce", err)
	return n, err
}

func (c *chain) SuggestFees(ctx context.Context) (anchor.Fees, error) {
	f, err := c.Chain.SuggestFees(ctx)
	c.count("suggest_fees", err)
	return f, err
}

func (c *chain) Finalized(ctx context.Context) (uint64, error) {
	n, err := c.Chain.Finalized(ctx)
	c.count("finalized", err)
	return n, err
}

func (c *chain) SignRoot(ctx context.Context, root anchor.Hash, nonce uint64, fees anchor.Fees) (anchor.SignedTx, error) {
	tx, err := c.Chain.SignRoot(ctx, root, nonce, fees)
	c.count("sign_root", err)
	return tx, err
}

func (c *chain) Broadcast(ctx context.Context, raw []byte) error {
	err := c.Chain.Broadcast(ctx, raw)
	c.count("broadcast", err)
	return err
}

func (c *chain) Receipt(ctx context.Context, h anchor.Hash) (anchor.Inclusion, error) {
	inc, err := c.Chain.Receipt(ctx, h)
	c.count("receipt", err)
	return inc, err
}

func (c *chain) Sync(ctx context.Context) error {
	err := c.Chain.Sync(ctx)
	c.count("sync", err)
	return err
}
