package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/store"
)

// anchorQueue adapts the batcher to content.AnchorQueue: the record's leaf
// (shared/record Signed.LeafHash, canonical bytes followed by the signature)
// is queued in the sign transaction.
type anchorQueue struct{ b *anchor.Batcher }

func (q anchorQueue) Enqueue(txn store.Txn, recordID string, leaf [32]byte, accountID string) error {
	return q.b.Enqueue(txn, anchor.Entry{RecordID: recordID, LeafHash: anchor.Hash(leaf), AccountID: accountID})
}

// proofSource adapts the batcher and the chain to content.ProofSource. It
// never trusts a stored status: every answer comes from anchor.Verify, which
// recomputes the root from the audit path and reads the transaction back.
type proofSource struct {
	b       *anchor.Batcher
	chain   anchor.ChainReader
	minConf uint64
}

func (p proofSource) AnchorState(ctx context.Context, recordID string, leaf [32]byte) (content.AnchorState, error) {
	proof, err := p.b.Proof(ctx, recordID)
	if errors.Is(err, anchor.ErrNotFound) {
		return content.AnchorState{Outcome: content.AnchorPending, Detail: "pending: not queued for anchoring"}, nil
	}
	if err != nil {
		return content.AnchorState{}, fmt.Errorf("anchor proof %s: %w", recordID, err)
	}
	res, verr := anchor.Verify(ctx, p.chain, anchor.Hash(leaf), proof, p.minConf)
	st := content.AnchorState{Detail: res.Detail, Anchor: proof.RecordAnchor(), Proof: proof}
	switch res.Outcome {
	case anchor.Verified:
		st.Outcome = content.AnchorVerified
	case anchor.Pending:
		st.Outcome = content.AnchorPending
	case anchor.Invalid:
		st.Outcome = content.AnchorInvalid
	default:
		// The check could not run (chain unreachable): an error, never
		// "pending", so the verify response says so.
		if verr == nil {
			verr = errors.New(res.Detail)
		}
		return content.AnchorState{}, fmt.Errorf("anchor verify %s: %w", recordID, verr)
	}
	return st, nil
}

// anchoredRecords is the batcher's event publisher: on batch.anchored it
// marks the batch's records anchored, then passes every event on, all
// inside the batcher's transaction. recs is set once, before Serve.
type anchoredRecords struct {
	recs *content.Service
	next events.Publisher
}

func (a *anchoredRecords) Publish(txn store.Txn, ev events.Event) error {
	if ev.Type == events.BatchAnchored {
		var ba anchor.BatchAnchored
		if err := json.Unmarshal(ev.Data, &ba); err != nil {
			return fmt.Errorf("decode batch.anchored: %w", err)
		}
		if err := a.recs.MarkAnchored(txn, ba.RecordIDs, ba.TxHash, ev.Time); err != nil {
			return fmt.Errorf("mark batch %s anchored: %w", ba.BatchID, err)
		}
	}
	return a.next.Publish(txn, ev)
}
