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
	// embeddedKeySeed derives the embedded chain's funded key. The key is
	// public by construction: the chain is private to this process.
	embeddedKeySeed = "provenant embedded dev chain anchoring key v1"
)

// EmbeddedConfig configures the in-process dev chain.
type EmbeddedConfig struct {
	// DataDir holds the chain (e.g. <data>/chain). Required. One process at a time.
	DataDir string
	// AnchorAddress, GasLimit: as in ClientConfig.
	AnchorAddress string
	GasLimit      uint64
}

// EmbeddedKey returns the deterministic funded key of the embedded chain.
func EmbeddedKey() (*ecdsa.PrivateKey, error) {
	seed := sha256.Sum256([]byte(embeddedKeySeed))
	return crypto.ToECDSA(seed[:])
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
	key, err := EmbeddedKey()
	if err != nil {
		return nil, fmt.Errorf("ethchain: embedded key: %w", err)
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
	return ch, nil
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
