package ethchain

import (
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/rpc"
)

// Embedded chain constants. Changing any of them changes the genesis and
// makes existing data dirs unusable.
const (
	// EmbeddedChainID is the chain id of the embedded dev chain.
	EmbeddedChainID = 1337
	// EmbeddedNetwork is the network name proofs from the embedded chain carry.
	EmbeddedNetwork = "provenant-dev"
	// embeddedNodeName fixes the instance dir (<DataDir>/provenant-chain)
	// whatever the binary is called.
	embeddedNodeName = "provenant-chain"
	// legacyKeySeed derived the funded key of embedded chains created
	// before each installation got its own key (NodeKeySize bytes under
	// <data>/secrets). It is public; it is used only to open such a chain
	// and move funds to the installation's key (see OpenEmbedded).
	legacyKeySeed = "provenant embedded dev chain anchoring key v1"
)

// NodeKeySize is the length of an embedded chain's node key seed.
const NodeKeySize = 32

// EmbeddedConfig configures the in-process dev chain.
type EmbeddedConfig struct {
	// DataDir holds the chain (e.g. <data>/chain). Required. One process at a time.
	DataDir string
	// NodeKey is the installation's random secret (NodeKeySize bytes): the
	// chain's funded sender key, so its genesis, and with it the chain's
	// identity, is this installation's alone. Nil means the legacy public
	// key (only to read a chain created before node keys; tests).
	NodeKey []byte
	// AnchorAddress, GasLimit: as in ClientConfig.
	AnchorAddress string
	GasLimit      uint64
}

// legacyKey returns the public funded key of chains created before node keys.
func legacyKey() (*ecdsa.PrivateKey, error) {
	seed := sha256.Sum256([]byte(legacyKeySeed))
	return crypto.ToECDSA(seed[:])
}

// nodeKey returns the sender key cfg names.
func (cfg EmbeddedConfig) nodeKey() (*ecdsa.PrivateKey, error) {
	if cfg.NodeKey == nil {
		return legacyKey()
	}
	if len(cfg.NodeKey) != NodeKeySize {
		return nil, fmt.Errorf("ethchain: node key must be %d bytes", NodeKeySize)
	}
	k, err := crypto.ToECDSA(cfg.NodeKey)
	if err != nil {
		return nil, errors.New("ethchain: node key is not a valid secp256k1 scalar")
	}
	return k, nil
}

// embeddedGenesis is byte-identical on every call (timestamp 0, fixed alloc).
func embeddedGenesis(funded common.Address) *core.Genesis {
	alloc := core.SystemContractAllocs()
	bal, _ := new(big.Int).SetString("1000000000000000000000000000", 10) // 1e9 ETH
	alloc[funded] = types.Account{Balance: bal}
	return &core.Genesis{
		Config:   params.AllDevChainProtocolChanges,
		GasLimit: ethconfig.Defaults.Miner.GasCeil,
		BaseFee:  big.NewInt(params.InitialBaseFee),
		Alloc:    alloc,
	}
}

// OpenEmbedded starts (or reopens) the in-process dev chain under
// cfg.DataDir and returns a Chain that mines a block for every transaction.
//
// Guarantees (docs/anchoring.md, "The embedded chain", gives the evidence):
// the chain, its genesis and the sender's nonce survive a clean Close, and
// everything accepted before the last Sync survives SIGKILL (hash state
// scheme, archive mode, and Sync = pebble fsync). Close shuts the node down
// cleanly; install a signal handler that calls it on SIGTERM.
func OpenEmbedded(cfg EmbeddedConfig) (_ *Chain, err error) {
	if cfg.DataDir == "" {
		return nil, errors.New("ethchain: embedded chain needs a DataDir")
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("ethchain: %w", err)
	}
	key, err := cfg.nodeKey()
	if err != nil {
		return nil, err
	}
	stack, err := node.New(&node.Config{
		Name:    embeddedNodeName,
		DataDir: cfg.DataDir,
		P2P:     p2p.Config{NoDiscovery: true, MaxPeers: 0, ListenAddr: ""},
	})
	if err != nil {
		return nil, fmt.Errorf("ethchain: node: %w", err)
	}
	defer func() {
		if err != nil {
			_ = stack.Close()
		}
	}()

	ec := ethconfig.Defaults
	ec.NetworkId = EmbeddedChainID
	ec.SyncMode = ethconfig.FullSync
	ec.StateScheme = rawdb.HashScheme // crash-safe with NoPruning + SyncKeyValue
	ec.NoPruning = true
	ec.DatabaseCache = 16 // avoid ~282 MB preallocated WAL files
	ec.TxPool.NoLocals = true
	ec.Miner.GasPrice = big.NewInt(1)
	ec.LogNoHistory = true
	ec.TransactionHistory = 0 // index every transaction
	exists, err := chainExists(stack, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	if !exists {
		// Never nil on an empty DB: that writes the mainnet genesis.
		ec.Genesis = embeddedGenesis(crypto.PubkeyToAddress(key.PublicKey))
	}
	backend, err := eth.New(stack, &ec)
	if err != nil {
		return nil, fmt.Errorf("ethchain: eth service: %w", err)
	}
	fs := filters.NewFilterSystem(backend.APIBackend, filters.Config{})
	stack.RegisterAPIs([]rpc.API{{Namespace: "eth", Service: filters.NewFilterAPI(fs)}})
	beacon, err := catalyst.NewSimulatedBeacon(0, common.Address{}, backend)
	if err != nil {
		return nil, fmt.Errorf("ethchain: simulated beacon: %w", err)
	}
	catalyst.RegisterSimulatedBeaconAPIs(stack, beacon) // mine on every new tx
	stack.RegisterLifecycle(beacon)
	if err := stack.Start(); err != nil {
		return nil, fmt.Errorf("ethchain: start node: %w", err)
	}
	client := ethclient.NewClient(stack.Attach())
	db := backend.ChainDb()
	ch, err := New(context.Background(), ClientConfig{
		Client:        client,
		Key:           key,
		Network:       EmbeddedNetwork,
		AnchorAddress: cfg.AnchorAddress,
		GasLimit:      cfg.GasLimit,
		MinTip:        big.NewInt(1),
		Syncer:        db.SyncKeyValue,
		Exporter:      exportBlocks(backend.BlockChain()),
		Importer:      importBlocks(backend.BlockChain()),
		Closer: func() error {
			client.Close()
			return stack.Close()
		},
	})
	if err != nil {
		client.Close()
		return nil, err
	}
	if ch.rpc, err = stack.RPCHandler(); err != nil {
		_ = ch.Close()
		return nil, fmt.Errorf("ethchain: in-process RPC: %w", err)
	}
	if exists {
		if err := adoptNodeKey(context.Background(), client, key, db.SyncKeyValue, cfg.DataDir); err != nil {
			_ = ch.Close()
			return nil, err
		}
	}
	return ch, nil
}

// migrationFunds is what a chain created with the legacy key gives the
// installation's own key on first opening with it: far more than any
// number of anchors costs at the chain's fees.
func migrationFunds() *big.Int {
	return new(big.Int).Mul(big.NewInt(100_000_000), big.NewInt(params.Ether))
}

// adoptNodeKey makes key able to anchor on an existing chain. A chain
// created with key funded it in its genesis. A chain created before node
// keys funded the public legacy key: it transfers migrationFunds from
// that key to key, once (key then has a balance), so that existing data
// dirs keep working and every anchor from then on is sent by this
// installation's key; earlier anchors stay valid (a proof names its
// transaction, not its sender). Any other chain was created with another
// node key, which this installation does not hold.
func adoptNodeKey(ctx context.Context, c *ethclient.Client, key *ecdsa.PrivateKey, sync func() error, dir string) error {
	addr := crypto.PubkeyToAddress(key.PublicKey)
	bal, err := c.BalanceAt(ctx, addr, nil)
	if err != nil {
		return fmt.Errorf("ethchain: node key balance: %w", err)
	}
	if bal.Sign() > 0 {
		return nil
	}
	legacy, err := legacyKey()
	if err != nil {
		return err
	}
	from := crypto.PubkeyToAddress(legacy.PublicKey)
	lbal, err := c.BalanceAt(ctx, from, nil)
	if err != nil {
		return fmt.Errorf("ethchain: legacy key balance: %w", err)
	}
	if lbal.Cmp(migrationFunds()) < 0 {
		return fmt.Errorf("ethchain: the chain in %s was created with another node key than this installation's "+
			"(restore the data directory's secrets from the same backup as the chain)", dir)
	}
	nonce, err := c.PendingNonceAt(ctx, from)
	if err != nil {
		return fmt.Errorf("ethchain: migrate node key: %w", err)
	}
	h, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		return fmt.Errorf("ethchain: migrate node key: %w", err)
	}
	id, err := c.ChainID(ctx)
	if err != nil {
		return fmt.Errorf("ethchain: migrate node key: %w", err)
	}
	tip := big.NewInt(1)
	feeCap := new(big.Int).Add(new(big.Int).Mul(h.BaseFee, big.NewInt(2)), tip)
	tx, err := types.SignNewTx(legacy, types.LatestSignerForChainID(id), &types.DynamicFeeTx{
		ChainID: id, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: params.TxGas, To: &addr, Value: migrationFunds(),
	})
	if err != nil {
		return fmt.Errorf("ethchain: migrate node key: %w", err)
	}
	if err := c.SendTransaction(ctx, tx); err != nil {
		return fmt.Errorf("ethchain: migrate node key: %w", err)
	}
	for range 500 {
		r, err := c.TransactionReceipt(ctx, tx.Hash())
		if err == nil && r.BlockNumber != nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return errors.New("ethchain: migrate node key: the transfer failed")
			}
			if err := sync(); err != nil {
				return fmt.Errorf("ethchain: migrate node key: %w", err)
			}
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return errors.New("ethchain: migrate node key: the transfer was not mined within 5 s")
}

// chainExists reports whether DataDir already holds a chain, the way geth
// --dev --datadir decides (cmd/utils/flags.go): genesis hash present.
func chainExists(stack *node.Node, dataDir string) (bool, error) {
	if _, err := os.Stat(filepath.Join(dataDir, embeddedNodeName, "chaindata")); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	db, err := stack.OpenDatabaseWithOptions("chaindata", node.DatabaseOptions{ReadOnly: true, Cache: 16, Handles: 64})
	if err != nil {
		return false, fmt.Errorf("ethchain: probe chain db: %w", err)
	}
	defer db.Close()
	return rawdb.ReadCanonicalHash(db, 0) != (common.Hash{}), nil
}

// exportBlocks writes blocks 1..head of bc as RLP.
func exportBlocks(bc *core.BlockChain) func(io.Writer) (uint64, error) {
	return func(w io.Writer) (uint64, error) {
		head := bc.CurrentBlock().Number.Uint64()
		if head == 0 {
			return 0, nil
		}
		if err := bc.ExportN(w, 1, head); err != nil {
			return 0, fmt.Errorf("ethchain: export blocks: %w", err)
		}
		return head, nil
	}
}

// importBlockBatch is how many blocks importBlocks inserts at once.
const importBlockBatch = 256

// importBlocks reads RLP blocks and inserts the missing ones into bc, in
// batches, as geth's own import does.
func importBlocks(bc *core.BlockChain) func(io.Reader) (int, error) {
	return func(r io.Reader) (int, error) {
		stream := rlp.NewStream(r, 0)
		n := 0
		for {
			var batch types.Blocks
			for len(batch) < importBlockBatch {
				b := new(types.Block)
				if err := stream.Decode(b); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					return n, fmt.Errorf("ethchain: import: block %d: %w", n+len(batch)+1, err)
				}
				if !bc.HasBlock(b.Hash(), b.NumberU64()) {
					batch = append(batch, b)
				}
			}
			if len(batch) == 0 {
				return n, nil
			}
			if _, err := bc.InsertChain(batch); err != nil {
				return n, fmt.Errorf("ethchain: import: %w", err)
			}
			n += len(batch)
		}
	}
}
