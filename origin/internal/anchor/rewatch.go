package anchor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/provenant/provenant/origin/internal/store"
)

// Defaults of the re-check of anchored batches.
const (
	// DefaultRecheckAnchored is Config.RecheckAnchored's default: the
	// latest batches are the ones a reorganisation can still reach.
	DefaultRecheckAnchored = 8
	// DefaultRecheckEvery is Config.RecheckEvery's default.
	DefaultRecheckEvery = 30 * time.Second
)

// recheckAnchored looks again, at most every RecheckEvery, at the
// transactions of the latest RecheckAnchored batches marked anchored, so
// that a reorganisation deeper than the confirmations is noticed without
// waiting for someone to verify a record: a transaction gone from the
// canonical chain (with the node's head past its block) reopens its batch
// (Prover.Reopen), which this batcher then anchors again; one re-mined in
// another block with its confirmations is re-confirmed there
// (Prover.Reconfirm). Called by Step with stepMu held.
func (b *Batcher) recheckAnchored(ctx context.Context) error {
	if b.cfg.RecheckAnchored < 0 {
		return nil
	}
	now := b.clk.Now()
	if !b.rechecked.IsZero() && now.Sub(b.rechecked) < b.cfg.RecheckEvery {
		return nil
	}
	b.rechecked = now
	var batches []batchRec
	err := b.st.View(ctx, func(txn store.Txn) error {
		last, err := store.GetUint64(txn, keySeq)
		if err != nil {
			return err
		}
		for seq := last; seq >= 1 && len(batches) < b.cfg.RecheckAnchored; seq-- {
			br, err := loadBatch(txn, seq)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if br.State == StateAnchored && br.Inclusion != nil {
				batches = append(batches, br)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("anchor: recheck anchored batches: %w", err)
	}
	if len(batches) == 0 {
		return nil
	}
	head, err := b.ch.Head(ctx)
	if err != nil {
		return fmt.Errorf("anchor: recheck anchored batches: %w", err)
	}
	var errs []error
	for _, br := range batches {
		in := br.Inclusion
		p := Proof{BatchID: BatchID(br.Seq), TxHash: in.TxHash, BlockNumber: in.BlockNumber, BlockHash: in.BlockHash}
		tx, err := b.ch.Transaction(ctx, in.TxHash)
		switch {
		case errors.Is(err, ErrNotIncluded):
			if head < in.BlockNumber {
				continue // a node behind the block (syncing) proves nothing
			}
			reopened, err := b.proofs.Reopen(ctx, p)
			if err != nil {
				errs = append(errs, err)
			} else if reopened {
				b.log.Warn("anchor transaction gone from the canonical chain after a reorganisation; anchoring the batch again",
					"batch", BatchID(br.Seq), "tx", in.TxHash, "block", in.BlockNumber)
			}
		case err != nil:
			errs = append(errs, err)
		case tx.BlockNumber != in.BlockNumber || tx.BlockHash != in.BlockHash:
			if head < tx.BlockNumber || head-tx.BlockNumber+1 < b.cfg.Confirmations {
				continue
			}
			if err := b.proofs.Reconfirm(ctx, p, Inclusion{TxHash: in.TxHash, BlockNumber: tx.BlockNumber, BlockHash: tx.BlockHash}); err != nil {
				errs = append(errs, err)
			} else {
				b.log.Warn("anchor transaction re-mined in another block after a reorganisation; re-confirmed there",
					"batch", BatchID(br.Seq), "tx", in.TxHash, "from_block", in.BlockNumber, "to_block", tx.BlockNumber)
			}
		}
	}
	return errors.Join(errs...)
}
