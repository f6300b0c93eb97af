// Package ethchain implements anchor.Chain on go-ethereum: an in-process,
// persisted dev chain (the default) or any Ethereum JSON-RPC node.
//
// It is the only anchoring package that imports go-ethereum, so that
// origin/internal/anchor and its callers compile without it.
package ethchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/provenant/provenant/origin/internal/anchor"
)

// Defaults used when a config field is zero.
const (
	// DefaultGasLimit covers anchoring calldata (36 bytes: 21,000 plus at
	// most 10×4×36 under the EIP-7623 floor = 22,440 gas) with a margin.
	DefaultGasLimit = 30_000
	// DefaultAnchorAddress receives every anchoring transaction (value 0).
	// It holds no code and no key is known for it; "PVN1" in its low bytes.
	DefaultAnchorAddress = "0x0000000000000000000000000000000050564e31"
)

// DefaultMinTip is the smallest priority fee the chain offers (1 gwei).
var DefaultMinTip = big.NewInt(1_000_000_000)

// Client is the part of go-ethereum's client API the chain uses.
// *ethclient.Client and ethclient/simulated.Client both satisfy it.
type Client interface {
	ChainID(ctx context.Context) (*big.Int, error)
	BlockNumber(ctx context.Context) (uint64, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	BlockByNumber(ctx context.Context, number *big.Int) (*types.Block, error)
	TransactionByHash(ctx context.Context, hash common.Hash) (*types.Transaction, bool, error)
	TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error)
	PendingNonceAt(ctx context.Context, account common.Address) (uint64, error)
	SuggestGasTipCap(ctx context.Context) (*big.Int, error)
	SendTransaction(ctx context.Context, tx *types.Transaction) error
}

// ClientConfig configures a Chain over an existing Client.
type ClientConfig struct {
	// Client talks to the node. Required.
	Client Client
	// Key signs anchoring transactions. Required. It must not be used by
	// anything else: the batcher owns its nonces.
	Key *ecdsa.PrivateKey
	// Network is the name proofs carry ("provenant-dev", "sepolia"). Required.
	Network string
	// AnchorAddress receives the transactions; DefaultAnchorAddress if empty.
	AnchorAddress string
	// GasLimit per anchoring transaction; DefaultGasLimit if zero.
	GasLimit uint64
	// MinTip floors the suggested priority fee; DefaultMinTip if nil.
	MinTip *big.Int
	// Syncer, if set, is called by Sync (the embedded chain's durability point).
	Syncer func() error
	// Closer, if set, is called by Close after nothing else will use Client.
	Closer func() error
	// Exporter and Importer, if set, back ExportBlocks and ImportBlocks
	// (the embedded chain's backup and restore).
	Exporter func(w io.Writer) (uint64, error)
	Importer func(r io.Reader) (int, error)
}

// ErrNotEmbedded is returned by ExportBlocks and ImportBlocks on a chain
// reached over RPC: its data lives with the node, not in the data dir.
var ErrNotEmbedded = errors.New("ethchain: not the embedded chain")

// Chain is an anchor.Chain on go-ethereum. Safe for concurrent use.
type Chain struct {
	c        Client
	key      *ecdsa.PrivateKey
	from     common.Address
	to       common.Address
	chainID  *big.Int
	network  string
	gasLimit uint64
	minTip   *big.Int
	signer   types.Signer
	syncer   func() error
	closer   func() error
	exporter func(io.Writer) (uint64, error)
	importer func(io.Reader) (int, error)
	// rpc is the embedded node's in-process JSON-RPC server; nil over RPC.
	rpc http.Handler
}

var _ anchor.Chain = (*Chain)(nil)

// New returns a Chain over cfg.Client. It reads the chain id once (so the
// node must answer) and never changes it afterwards.
func New(ctx context.Context, cfg ClientConfig) (*Chain, error) {
	if cfg.Client == nil || cfg.Key == nil || cfg.Network == "" {
		return nil, errors.New("ethchain: Client, Key and Network are required")
	}
	addr := cfg.AnchorAddress
	if addr == "" {
		addr = DefaultAnchorAddress
	}
	if !common.IsHexAddress(addr) {
		return nil, fmt.Errorf("ethchain: anchor address %q is not an address", addr)
	}
	id, err := cfg.Client.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("ethchain: read chain id: %w", err)
	}
	ch := &Chain{
		c:        cfg.Client,
		key:      cfg.Key,
		from:     crypto.PubkeyToAddress(cfg.Key.PublicKey),
		to:       common.HexToAddress(addr),
		chainID:  id,
		network:  cfg.Network,
		gasLimit: cfg.GasLimit,
		minTip:   cfg.MinTip,
		signer:   types.LatestSignerForChainID(id),
		syncer:   cfg.Syncer,
		closer:   cfg.Closer,
		exporter: cfg.Exporter,
		importer: cfg.Importer,
	}
	if ch.gasLimit == 0 {
		ch.gasLimit = DefaultGasLimit
	}
	if ch.minTip == nil {
		ch.minTip = DefaultMinTip
	}
	return ch, nil
}

// Network implements anchor.ChainReader.
func (c *Chain) Network() string { return c.network }

// ChainID implements anchor.ChainReader.
func (c *Chain) ChainID() uint64 { return c.chainID.Uint64() }

// GenesisHash is the hash of block 0: with the chain id, the chain's
// identity. Every embedded chain's genesis funds its installation's own
// node key, so two installations never share one.
func (c *Chain) GenesisHash(ctx context.Context) (anchor.Hash, error) {
	h, err := c.c.HeaderByNumber(ctx, big.NewInt(0))
	if err != nil {
		return anchor.Hash{}, fmt.Errorf("ethchain: genesis: %w", err)
	}
	return anchor.Hash(h.Hash()), nil
}

// Sender implements anchor.Chain.
func (c *Chain) Sender() string { return c.from.Hex() }

// AnchorAddress is the address every anchoring transaction is sent to.
func (c *Chain) AnchorAddress() string { return c.to.Hex() }

// Head implements anchor.ChainReader.
func (c *Chain) Head(ctx context.Context) (uint64, error) {
	n, err := c.c.BlockNumber(ctx)
	if err != nil {
		return 0, fmt.Errorf("ethchain: head: %w", err)
	}
	return n, nil
}

// Finalized implements anchor.Chain with the "finalized" block tag.
func (c *Chain) Finalized(ctx context.Context) (uint64, error) {
	h, err := c.c.HeaderByNumber(ctx, big.NewInt(int64(rpc.FinalizedBlockNumber)))
	if err != nil {
		if errors.Is(err, ethereum.NotFound) || strings.Contains(err.Error(), "finalized block not found") {
			return 0, fmt.Errorf("ethchain: %w", anchor.ErrNoFinality)
		}
		return 0, fmt.Errorf("ethchain: finalized: %w", err)
	}
	return h.Number.Uint64(), nil
}

// PendingNonce implements anchor.Chain.
func (c *Chain) PendingNonce(ctx context.Context) (uint64, error) {
	n, err := c.c.PendingNonceAt(ctx, c.from)
	if err != nil {
		return 0, fmt.Errorf("ethchain: pending nonce: %w", err)
	}
	return n, nil
}

// SuggestFees implements anchor.Chain: tip = max(node suggestion, MinTip),
// fee cap = 2 × head base fee + tip.
func (c *Chain) SuggestFees(ctx context.Context) (anchor.Fees, error) {
	tip, err := c.c.SuggestGasTipCap(ctx)
	if err != nil {
		return anchor.Fees{}, fmt.Errorf("ethchain: suggest tip: %w", err)
	}
	if tip.Cmp(c.minTip) < 0 {
		tip = new(big.Int).Set(c.minTip)
	}
	h, err := c.c.HeaderByNumber(ctx, nil)
	if err != nil {
		return anchor.Fees{}, fmt.Errorf("ethchain: head header: %w", err)
	}
	base := h.BaseFee
	if base == nil {
		base = new(big.Int)
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(base, big.NewInt(2)), tip)
	return anchor.Fees{TipCap: tip, FeeCap: feeCap}, nil
}

// SignRoot implements anchor.Chain: an EIP-1559 transaction with value 0,
// to AnchorAddress, calldata anchor.Calldata(root).
func (c *Chain) SignRoot(_ context.Context, root anchor.Hash, nonce uint64, fees anchor.Fees) (anchor.SignedTx, error) {
	if fees.TipCap == nil || fees.FeeCap == nil {
		return anchor.SignedTx{}, errors.New("ethchain: sign root: fees are required")
	}
	to := c.to
	tx, err := types.SignNewTx(c.key, c.signer, &types.DynamicFeeTx{
		ChainID:   c.chainID,
		Nonce:     nonce,
		GasTipCap: fees.TipCap,
		GasFeeCap: fees.FeeCap,
		Gas:       c.gasLimit,
		To:        &to,
		Data:      anchor.Calldata(root),
	})
	if err != nil {
		return anchor.SignedTx{}, fmt.Errorf("ethchain: sign root: %w", err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return anchor.SignedTx{}, fmt.Errorf("ethchain: encode tx: %w", err)
	}
	return anchor.SignedTx{
		Hash:   anchor.Hash(tx.Hash()),
		Nonce:  nonce,
		Raw:    raw,
		TipCap: new(big.Int).Set(fees.TipCap),
		FeeCap: new(big.Int).Set(fees.FeeCap),
	}, nil
}

// Broadcast implements anchor.Chain.
func (c *Chain) Broadcast(ctx context.Context, raw []byte) error {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return fmt.Errorf("ethchain: decode tx: %w", err)
	}
	err := c.c.SendTransaction(ctx, tx)
	if err == nil {
		return nil
	}
	return classifySendError(tx.Hash(), err)
}

// classifySendError maps node refusals onto anchor sentinels. Over JSON-RPC
// only the message survives, so this is the one place that reads messages
// (go-ethereum core/txpool/errors.go and core/error.go).
func classifySendError(h common.Hash, err error) error {
	msg := strings.ToLower(err.Error())
	switch {
	case strings.Contains(msg, "already known"), strings.Contains(msg, "already imported"):
		return nil
	case strings.Contains(msg, "nonce too low"):
		return fmt.Errorf("ethchain: send %s: %w (%w)", h.Hex(), anchor.ErrNonceTooLow, err)
	case strings.Contains(msg, "underpriced"):
		return fmt.Errorf("ethchain: send %s: %w (%w)", h.Hex(), anchor.ErrUnderpriced, err)
	}
	return fmt.Errorf("ethchain: send %s: %w", h.Hex(), err)
}

// Receipt implements anchor.Chain. A receipt counts only if its block is at
// or below the head and is the canonical block at its height: a node can
// still return receipts of blocks that a crash or a reorg removed.
func (c *Chain) Receipt(ctx context.Context, hash anchor.Hash) (anchor.Inclusion, error) {
	r, err := c.c.TransactionReceipt(ctx, common.Hash(hash))
	if err != nil {
		if notYet(err) {
			return anchor.Inclusion{}, fmt.Errorf("ethchain: receipt %s: %w", hash, anchor.ErrNotIncluded)
		}
		return anchor.Inclusion{}, fmt.Errorf("ethchain: receipt %s: %w", hash, err)
	}
	if r.BlockNumber == nil {
		return anchor.Inclusion{}, fmt.Errorf("ethchain: receipt %s: %w", hash, anchor.ErrNotIncluded)
	}
	if err := c.canonical(ctx, r.BlockNumber.Uint64(), r.BlockHash); err != nil {
		return anchor.Inclusion{}, fmt.Errorf("ethchain: receipt %s: %w", hash, err)
	}
	return anchor.Inclusion{
		TxHash:      hash,
		BlockNumber: r.BlockNumber.Uint64(),
		BlockHash:   anchor.Hash(r.BlockHash),
		Success:     r.Status == types.ReceiptStatusSuccessful,
	}, nil
}

// canonical returns nil if blockHash is the canonical block at number and
// number ≤ head, ErrNotIncluded if not, another error if the node fails.
func (c *Chain) canonical(ctx context.Context, number uint64, blockHash common.Hash) error {
	head, err := c.c.BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("head: %w", err)
	}
	if number > head {
		return anchor.ErrNotIncluded
	}
	h, err := c.c.HeaderByNumber(ctx, new(big.Int).SetUint64(number))
	if err != nil {
		if errors.Is(err, ethereum.NotFound) {
			return anchor.ErrNotIncluded
		}
		return fmt.Errorf("header %d: %w", number, err)
	}
	if h.Hash() != blockHash {
		return anchor.ErrNotIncluded
	}
	return nil
}

// notYet reports errors that mean "no receipt (yet)".
func notYet(err error) bool {
	if errors.Is(err, ethereum.NotFound) {
		return true
	}
	// Reported while the node is still indexing transactions.
	return strings.Contains(err.Error(), "transaction indexing is in progress")
}

// Transaction implements anchor.ChainReader.
func (c *Chain) Transaction(ctx context.Context, hash anchor.Hash) (anchor.AnchorTx, error) {
	tx, pending, err := c.c.TransactionByHash(ctx, common.Hash(hash))
	if err != nil {
		if notYet(err) {
			return anchor.AnchorTx{}, fmt.Errorf("ethchain: tx %s: %w", hash, anchor.ErrNotIncluded)
		}
		return anchor.AnchorTx{}, fmt.Errorf("ethchain: tx %s: %w", hash, err)
	}
	if pending {
		return anchor.AnchorTx{}, fmt.Errorf("ethchain: tx %s: %w", hash, anchor.ErrNotIncluded)
	}
	inc, err := c.Receipt(ctx, hash)
	if err != nil {
		return anchor.AnchorTx{}, err
	}
	from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
	if err != nil {
		return anchor.AnchorTx{}, fmt.Errorf("ethchain: tx %s sender: %w", hash, err)
	}
	out := anchor.AnchorTx{
		Hash:        hash,
		From:        from.Hex(),
		Data:        tx.Data(),
		BlockNumber: inc.BlockNumber,
		BlockHash:   inc.BlockHash,
	}
	if tx.To() != nil {
		out.To = tx.To().Hex()
	}
	return out, nil
}

// Anchors returns every anchoring transaction (calldata "PVN1" ‖ root)
// sent by this chain's Sender in canonical blocks from..to inclusive, in
// chain order. It is for audits (fsck: one transaction per batch) and tests;
// it reads whole blocks, so keep ranges small on public networks.
func (c *Chain) Anchors(ctx context.Context, from, to uint64) ([]anchor.AnchorTx, error) {
	var out []anchor.AnchorTx
	for n := from; n <= to; n++ {
		blk, err := c.c.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			return nil, fmt.Errorf("ethchain: block %d: %w", n, err)
		}
		for _, tx := range blk.Transactions() {
			if _, err := anchor.RootFromCalldata(tx.Data()); err != nil {
				continue
			}
			from, err := types.Sender(c.signer, tx)
			if err != nil || from != c.from {
				continue
			}
			a := anchor.AnchorTx{Hash: anchor.Hash(tx.Hash()), From: from.Hex(), Data: tx.Data(), BlockNumber: n, BlockHash: anchor.Hash(blk.Hash())}
			if tx.To() != nil {
				a.To = tx.To().Hex()
			}
			out = append(out, a)
		}
	}
	return out, nil
}

// Sync implements anchor.Chain.
func (c *Chain) Sync(context.Context) error {
	if c.syncer == nil {
		return nil
	}
	if err := c.syncer(); err != nil {
		return fmt.Errorf("ethchain: sync: %w", err)
	}
	return nil
}

// Embedded reports whether the chain's data lives in the origin's data
// directory (and so belongs in its backups).
func (c *Chain) Embedded() bool { return c.exporter != nil }

// ExportBlocks writes every block after genesis, up to the current head,
// RLP-encoded one after another, and returns the head's number. Blocks
// are immutable once written, so a copy taken while the chain keeps
// mining is consistent: it holds everything up to the head it names.
func (c *Chain) ExportBlocks(w io.Writer) (uint64, error) {
	if c.exporter == nil {
		return 0, ErrNotEmbedded
	}
	return c.exporter(w)
}

// ImportBlocks inserts blocks written by ExportBlocks into this chain,
// which must have the same genesis (any embedded chain has), and returns
// how many it inserted. Blocks already present are skipped.
func (c *Chain) ImportBlocks(r io.Reader) (int, error) {
	if c.importer == nil {
		return 0, ErrNotEmbedded
	}
	return c.importer(r)
}

// Close releases the node or connection. The Chain must not be used afterwards.
func (c *Chain) Close() error {
	if c.closer == nil {
		return nil
	}
	return c.closer()
}
