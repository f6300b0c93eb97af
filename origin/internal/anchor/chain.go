package anchor

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
)

// Hash is a 32-byte value: a Merkle root, a leaf hash, a transaction or block hash.
type Hash [32]byte

// String returns the hash as 0x-prefixed lower-case hex.
func (h Hash) String() string { return "0x" + hex.EncodeToString(h[:]) }

// MarshalText encodes the hash as 0x-prefixed hex, so JSON carries it as a string.
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText accepts 64 hex digits with or without a 0x prefix and rejects anything else.
func (h *Hash) UnmarshalText(b []byte) error {
	s := string(b)
	if len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X") {
		s = s[2:]
	}
	if len(s) != 64 {
		return fmt.Errorf("hash: want 64 hex digits, got %d", len(s))
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return fmt.Errorf("hash: %w", err)
	}
	return nil
}

// ParseHash parses a hash written as by Hash.String.
func ParseHash(s string) (Hash, error) {
	var h Hash
	err := h.UnmarshalText([]byte(s))
	return h, err
}

// CalldataTag is the fixed 4-byte prefix ("PVN1") of every anchoring
// transaction's calldata. The full calldata is exactly CalldataTag followed by
// the 32-byte Merkle root (36 bytes); see docs/anchoring.md.
var CalldataTag = [4]byte{'P', 'V', 'N', '1'}

// CalldataLen is the length of anchoring calldata: tag plus root.
const CalldataLen = len(CalldataTag) + 32

// Calldata returns the anchoring calldata for root: CalldataTag ‖ root.
func Calldata(root Hash) []byte {
	out := make([]byte, 0, CalldataLen)
	out = append(out, CalldataTag[:]...)
	return append(out, root[:]...)
}

// ErrNotAnchorCalldata reports calldata that is not exactly CalldataTag ‖ 32-byte root.
var ErrNotAnchorCalldata = errors.New("calldata is not a Provenant anchor")

// RootFromCalldata returns the root carried by anchoring calldata, or
// ErrNotAnchorCalldata if data is not exactly CalldataTag ‖ 32 bytes.
func RootFromCalldata(data []byte) (Hash, error) {
	if len(data) != CalldataLen || !bytes.Equal(data[:len(CalldataTag)], CalldataTag[:]) {
		return Hash{}, ErrNotAnchorCalldata
	}
	var h Hash
	copy(h[:], data[len(CalldataTag):])
	return h, nil
}

// Fees are EIP-1559 fee parameters in wei.
type Fees struct {
	// TipCap is the max priority fee per gas.
	TipCap *big.Int
	// FeeCap is the max fee per gas (base fee + tip ceiling).
	FeeCap *big.Int
}

// SignedTx is an anchoring transaction that is signed but not necessarily
// broadcast. Raw is the exact bytes to (re)broadcast; rebroadcasting the same
// Raw is idempotent.
type SignedTx struct {
	Hash   Hash
	Nonce  uint64
	Raw    []byte
	TipCap *big.Int
	FeeCap *big.Int
}

// Inclusion says that a transaction is in the canonical chain.
type Inclusion struct {
	TxHash      Hash
	BlockNumber uint64
	BlockHash   Hash
	// Success is the receipt status (false means the transaction reverted).
	Success bool
}

// AnchorTx is an anchoring transaction as read back from the chain.
type AnchorTx struct {
	Hash        Hash
	From        string
	To          string
	Data        []byte
	BlockNumber uint64
	BlockHash   Hash
}

// Sentinel errors a Chain returns so that the batcher can branch on them.
var (
	// ErrNotIncluded: the transaction is unknown or not in a canonical block
	// (still pending, dropped, or reorged out).
	ErrNotIncluded = errors.New("transaction not included in the canonical chain")
	// ErrNonceTooLow: the node refused a transaction because the sender's
	// nonce has moved past it (it, or another tx with that nonce, was mined).
	ErrNonceTooLow = errors.New("nonce too low")
	// ErrUnderpriced: the node refused a transaction (or replacement) as underpriced.
	ErrUnderpriced = errors.New("transaction underpriced")
	// ErrNoFinality: the chain does not report a finalized block.
	ErrNoFinality = errors.New("chain reports no finalized block")
)

// ChainReader is the read side of a chain, all that proof verification needs.
type ChainReader interface {
	// Network names the chain ("provenant-dev", "sepolia", …); proofs carry it.
	Network() string
	// ChainID is the EIP-155 chain id.
	ChainID() uint64
	// Head returns the number of the current canonical head block.
	Head(ctx context.Context) (uint64, error)
	// Transaction reads a mined transaction by hash. It returns ErrNotIncluded
	// unless the transaction is in a block that is canonical now (its block
	// hash is the canonical hash at its height and the height is ≤ Head).
	Transaction(ctx context.Context, hash Hash) (AnchorTx, error)
}

// Chain is what the batcher needs from an Ethereum chain. Signing and
// broadcasting are separate so that the signed transaction can be persisted
// before it is broadcast (persistence-before-broadcast): after a crash the
// same bytes are rebroadcast and never a second transaction for the batch.
//
// Implementations must be safe for concurrent use.
type Chain interface {
	ChainReader
	// Sender is the address (0x hex) that signs anchoring transactions.
	Sender() string
	// PendingNonce returns the sender's next nonce, counting txs in the node's pool.
	PendingNonce(ctx context.Context) (uint64, error)
	// SuggestFees returns fees that should get a transaction mined soon,
	// with FeeCap = 2 × current base fee + TipCap (the batcher derives the
	// base fee from it when applying its fee ceiling).
	SuggestFees(ctx context.Context) (Fees, error)
	// Finalized returns the number of the latest finalized block (the
	// "finalized" block tag), or ErrNoFinality if the chain has none.
	Finalized(ctx context.Context) (uint64, error)
	// SignRoot builds and signs, without broadcasting, the transaction that
	// anchors root with the given nonce and fees. It has no side effect on
	// the chain.
	SignRoot(ctx context.Context, root Hash, nonce uint64, fees Fees) (SignedTx, error)
	// Broadcast submits raw. It returns nil if the node accepted it or
	// already knew it ("already known"), ErrNonceTooLow or ErrUnderpriced
	// (wrapped) when refused for those reasons, and another error otherwise.
	Broadcast(ctx context.Context, raw []byte) error
	// Receipt returns where the transaction was included, or ErrNotIncluded
	// if it is not in a block that is canonical now.
	Receipt(ctx context.Context, hash Hash) (Inclusion, error)
	// Sync makes everything the chain has accepted so far survive a crash of
	// this process (the embedded chain flushes its database; a remote node
	// returns nil). The batcher calls it before recording an inclusion.
	Sync(ctx context.Context) error
}
