package anchor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/provenant/provenant/internal/defaults"
	"github.com/provenant/provenant/shared/record"
)

// State is what is known about one record's anchoring, for the verify
// response's blockchain check and the record detail.
type State struct {
	// Outcome is Verified, Pending or Invalid; Unavailable only when the
	// check could not run.
	Outcome Outcome
	// Detail is a human-readable sentence for the blockchain check, e.g.
	// "pending: queued for the next batch".
	Detail string
	// Proof is the record's proof document; nil while the record is not
	// queued (or when the state comes from elsewhere than a Checker).
	Proof *Proof
}

// Anchor returns the certificate's inclusion proof (Proof.RecordAnchor), nil
// until the record's batch is in a transaction.
func (s State) Anchor() *record.Anchor {
	if s.Proof == nil {
		return nil
	}
	return s.Proof.RecordAnchor()
}

// Checker reports a record's anchoring state without trusting any status the
// origin stored: every answer comes from Verify, which recomputes the root
// from the audit path and reads the transaction back from Chain.
type Checker struct {
	Proofs *Prover
	Chain  ChainReader
	// MinConfirmations a block needs for Verified (0 means 1).
	MinConfirmations uint64
	// ReadTimeout bounds the chain reads of one AnchorState call together
	// (0 means DefaultReadTimeout): a node that accepts connections and
	// never answers costs a request at most this, and the state is then
	// unavailable, as when the node is down.
	ReadTimeout time.Duration
}

// DefaultReadTimeout is Checker.ReadTimeout's default: a healthy node
// answers the five calls of a check in milliseconds, a public endpoint
// under load in well under a second.
const DefaultReadTimeout = 5 * time.Second

// reconfirm moves proof's batch to the block the chain now holds its
// transaction in, once that block has MinConfirmations, and verifies the
// proof again; before that the record is Pending.
func (c Checker) reconfirm(ctx context.Context, recordID string, leaf Hash, proof Proof, moved Inclusion) (Result, error) {
	head, err := c.Chain.Head(ctx)
	if err != nil {
		return Result{Outcome: Unavailable, Detail: "could not read the chain head"}, err
	}
	need := max(c.MinConfirmations, 1)
	conf := uint64(0)
	if head >= moved.BlockNumber {
		conf = head - moved.BlockNumber + 1
	}
	if conf < need {
		return Result{Outcome: Pending, Detail: fmt.Sprintf("pending: a chain reorganisation moved tx %s to block %d, %d of %d confirmations",
			proof.TxHash, moved.BlockNumber, conf, need)}, nil
	}
	if err := c.Proofs.Reconfirm(ctx, proof, moved); err != nil {
		return Result{Outcome: Unavailable, Detail: "could not record the re-confirmed anchor"}, err
	}
	proof.BlockNumber, proof.BlockHash = moved.BlockNumber, moved.BlockHash
	return Verify(ctx, c.Chain, leaf, proof, c.MinConfirmations)
}

// ErrChainTimeout is wrapped by AnchorState errors when the chain did not
// answer within the read timeout.
var ErrChainTimeout = errors.New("anchor: the chain did not answer in time")

// AnchorState returns the state of recordID, whose leaf hash is leaf. A
// record that was never queued is Pending. An error means the state could
// not be determined (store or chain unavailable); it is never used to say
// "pending".
func (c Checker) AnchorState(ctx context.Context, recordID string, leaf Hash) (State, error) {
	proof, err := c.Proofs.Proof(ctx, recordID)
	if errors.Is(err, ErrNotFound) {
		return State{Outcome: Pending, Detail: "pending: not queued for anchoring"}, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("anchor proof %s: %w", recordID, err)
	}
	timeout := defaults.Positive(c.ReadTimeout, DefaultReadTimeout)
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, verr := Verify(rctx, c.Chain, leaf, proof, c.MinConfirmations)
	if errors.Is(verr, ErrMoved) && res.Moved != nil {
		// A reorganisation deeper than the confirmations re-mined the
		// transaction, root unchanged, in another block: re-confirm the
		// anchor there once that block has its confirmations, so that
		// every surface (verify, record, certificate, receipt) agrees
		// again.
		res, verr = c.reconfirm(rctx, recordID, leaf, proof, *res.Moved)
		if res.Outcome == Verified {
			if p, err := c.Proofs.Proof(rctx, recordID); err == nil {
				proof = p
			}
		}
	}
	if errors.Is(verr, ErrTxGone) {
		// The node has the block the proof names (its head is past it)
		// and no canonical copy of the transaction: a reorganisation took
		// it out. The batch goes back to the batcher, which finds it
		// re-mined or anchors the root again; until then the records are
		// pending, not invalid.
		if head, herr := c.Chain.Head(rctx); herr == nil && head >= proof.BlockNumber {
			if _, err := c.Proofs.Reopen(rctx, proof); err != nil {
				return State{}, fmt.Errorf("anchor reopen %s: %w", proof.BatchID, err)
			}
			return State{Outcome: Pending, Detail: fmt.Sprintf("pending: a chain reorganisation took tx %s out of block %d; batch %s is being anchored again",
				proof.TxHash, proof.BlockNumber, proof.BatchID), Proof: &proof}, nil
		}
	}
	switch res.Outcome {
	case Verified, Pending, Invalid:
		return State{Outcome: res.Outcome, Detail: res.Detail, Proof: &proof}, nil
	}
	if verr == nil {
		verr = errors.New(res.Detail)
	}
	if ctx.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded) {
		return State{}, fmt.Errorf("anchor verify %s: %w after %v: %w", recordID, ErrChainTimeout, timeout, verr)
	}
	return State{}, fmt.Errorf("anchor verify %s: %w", recordID, verr)
}
