package ethchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// Config selects and configures the anchoring chain. The origin maps its
// flags onto it: --eth-rpc → RPCURL, --eth-key → KeyFile (or the
// PROVENANT_ETH_PRIVATE_KEY variable → KeyHex), --eth-network → Network,
// --eth-chain-id → ChainID, --eth-network-name → NetworkName, --eth-public
// → Public, --eth-explorer-tx-url → ExplorerTxURL, --eth-confirmations →
// Confirmations, --eth-max-fee-gwei → MaxFeeCap. With RPCURL empty the
// embedded dev chain under DataDir/chain is used.
type Config struct {
	// RPCURL is an Ethereum JSON-RPC endpoint (http, ws or ipc). Empty = embedded chain.
	RPCURL string
	// KeyFile holds the sender's secp256k1 private key as hex (geth's
	// crypto.LoadECDSA format); KeyHex is the key itself. Exactly one is
	// required with RPCURL. The key must be funded and used by nothing
	// else; it never appears in an error or a log.
	KeyFile string
	KeyHex  string
	// Network is a preset name (Presets: mainnet, sepolia, base, …) or
	// CustomNetwork. Required with RPCURL; the embedded chain always uses
	// EmbeddedNetwork.
	Network string
	// NetworkName is the name proofs carry: required with CustomNetwork,
	// the preset's name otherwise (Validate fills it).
	NetworkName string
	// ChainID is the chain id the endpoint must answer (Dial refuses any
	// other): required with CustomNetwork, the preset's otherwise.
	ChainID uint64
	// Public says that anyone can read the chain from independent nodes:
	// true for every preset, the operator's statement for a custom chain.
	Public bool
	// ExplorerTxURL is a block explorer's transaction page ("{tx}" for the
	// hash), for a public chain; a preset supplies its own.
	ExplorerTxURL string
	// Confirmations a batch needs before it is anchored (≥ 1). Zero means
	// 1 for the embedded chain, the preset's for a preset and
	// DefaultRPCConfirmations for a custom chain. Not used by Open: the
	// origin wiring passes it to anchor.Config.
	Confirmations uint64
	// RequireFinalized also waits for the finalized block tag (a preset
	// may turn it on). Not used by Open: see Confirmations.
	RequireFinalized bool
	// MaxFeeCap is the fee ceiling in wei per gas; nil means the preset's,
	// or anchor.DefaultMaxFeeCap. Not used by Open: see Confirmations.
	MaxFeeCap *big.Int
	// DataDir is the origin's data dir; the embedded chain lives in DataDir/chain.
	DataDir string
	// NodeKey is the embedded chain's per-installation secret (see
	// EmbeddedConfig.NodeKey); the origin keeps it in <data>/secrets.
	NodeKey []byte
	// AnchorAddress and GasLimit: as in ClientConfig.
	AnchorAddress string
	GasLimit      uint64
}

// DefaultRPCConfirmations is the confirmation depth for a custom RPC chain
// when Config.Confirmations is zero.
const DefaultRPCConfirmations = 12

// Validate checks cfg and returns it with defaults filled in (the preset's
// chain id, name, confirmation rule, explorer and fee ceiling). It is
// idempotent.
func (cfg Config) Validate() (Config, error) {
	if cfg.RPCURL == "" {
		if cfg.DataDir == "" {
			return cfg, errors.New("ethchain: DataDir is required for the embedded chain")
		}
		if cfg.Network != "" && cfg.Network != EmbeddedNetwork {
			return cfg, fmt.Errorf("ethchain: --eth-network %s needs --eth-rpc (without it the embedded development chain is used)", cfg.Network)
		}
		cfg.Network, cfg.NetworkName, cfg.ChainID, cfg.Public, cfg.ExplorerTxURL = EmbeddedNetwork, EmbeddedNetwork, EmbeddedChainID, false, ""
		if cfg.Confirmations == 0 {
			cfg.Confirmations = 1
		}
		return cfg, nil
	}
	if (cfg.KeyFile == "") == (cfg.KeyHex == "") {
		return cfg, errors.New("ethchain: --eth-rpc needs the sender's key: --eth-key FILE or PROVENANT_ETH_PRIVATE_KEY, not both")
	}
	switch p, ok := Presets()[cfg.Network]; {
	case ok:
		if cfg.ChainID != 0 && cfg.ChainID != p.ChainID {
			return cfg, fmt.Errorf("ethchain: --eth-chain-id %d contradicts --eth-network %s (chain id %d)", cfg.ChainID, p.Name, p.ChainID)
		}
		if cfg.NetworkName != "" && cfg.NetworkName != p.Name {
			return cfg, fmt.Errorf("ethchain: --eth-network-name is for --eth-network %s only", CustomNetwork)
		}
		cfg.NetworkName, cfg.ChainID, cfg.Public = p.Name, p.ChainID, true
		if cfg.ExplorerTxURL == "" {
			cfg.ExplorerTxURL = p.ExplorerTxURL
		}
		if cfg.Confirmations == 0 {
			cfg.Confirmations = p.Confirmations
		}
		cfg.RequireFinalized = cfg.RequireFinalized || p.RequireFinalized
		if cfg.MaxFeeCap == nil {
			cfg.MaxFeeCap = p.MaxFeeCap()
		}
	case cfg.Network == CustomNetwork:
		if cfg.ChainID == 0 || cfg.NetworkName == "" {
			return cfg, fmt.Errorf("ethchain: --eth-network %s needs --eth-chain-id and --eth-network-name", CustomNetwork)
		}
		if _, clash := Presets()[cfg.NetworkName]; clash || cfg.NetworkName == EmbeddedNetwork {
			return cfg, fmt.Errorf("ethchain: --eth-network-name %s is reserved: use --eth-network %s", cfg.NetworkName, cfg.NetworkName)
		}
		if cfg.Confirmations == 0 {
			cfg.Confirmations = DefaultRPCConfirmations
		}
	case cfg.Network == "":
		return cfg, fmt.Errorf("ethchain: --eth-rpc needs --eth-network: one of %s, or %s", presetNames(), CustomNetwork)
	default:
		return cfg, fmt.Errorf("ethchain: unknown --eth-network %q: one of %s, or %s with --eth-chain-id and --eth-network-name", cfg.Network, presetNames(), CustomNetwork)
	}
	if cfg.ExplorerTxURL != "" {
		if !cfg.Public {
			return cfg, errors.New("ethchain: --eth-explorer-tx-url is for a public chain (--eth-public)")
		}
		if !strings.HasPrefix(cfg.ExplorerTxURL, "https://") || !strings.Contains(cfg.ExplorerTxURL, "{tx}") {
			return cfg, errors.New(`ethchain: --eth-explorer-tx-url must be an https URL holding "{tx}"`)
		}
	}
	return cfg, nil
}

// Open returns the chain cfg selects: Dial if cfg.RPCURL is set, otherwise
// OpenEmbedded on cfg.DataDir/chain. The caller must Close it.
func Open(ctx context.Context, cfg Config) (*Chain, error) {
	cfg, err := cfg.Validate()
	if err != nil {
		return nil, err
	}
	if cfg.RPCURL == "" {
		return OpenEmbedded(EmbeddedConfig{
			DataDir:       filepath.Join(cfg.DataDir, "chain"),
			NodeKey:       cfg.NodeKey,
			AnchorAddress: cfg.AnchorAddress,
			GasLimit:      cfg.GasLimit,
		})
	}
	return Dial(ctx, cfg)
}

// Dial connects to cfg.RPCURL with the key in cfg.KeyFile. It checks that
// the endpoint answers eth_chainId.
func Dial(ctx context.Context, cfg Config) (*Chain, error) {
	cfg, err := cfg.Validate()
	if err != nil {
		return nil, err
	}
	if cfg.RPCURL == "" {
		return nil, errors.New("ethchain: Dial needs RPCURL")
	}
	key, err := loadKey(cfg)
	if err != nil {
		return nil, err
	}
	client, err := ethclient.DialContext(ctx, cfg.RPCURL)
	if err != nil {
		return nil, fmt.Errorf("ethchain: dial %s: %w", redactURL(cfg.RPCURL), err)
	}
	ch, err := New(ctx, ClientConfig{
		Client:        client,
		Key:           key,
		Network:       cfg.NetworkName,
		AnchorAddress: cfg.AnchorAddress,
		GasLimit:      cfg.GasLimit,
		Closer:        func() error { client.Close(); return nil },
	})
	if err != nil {
		client.Close()
		return nil, err
	}
	if got := ch.ChainID(); got != cfg.ChainID {
		_ = ch.Close()
		return nil, fmt.Errorf("ethchain: refusing to start: the node at %s is chain id %d, but --eth-network %s expects chain id %d "+
			"(check --eth-rpc and --eth-network)", redactURL(cfg.RPCURL), got, cfg.Network, cfg.ChainID)
	}
	return ch, nil
}

// loadKey reads the sender's key from KeyHex or KeyFile. Its errors never
// quote the key.
func loadKey(cfg Config) (*ecdsa.PrivateKey, error) {
	if cfg.KeyHex != "" {
		key, err := crypto.HexToECDSA(strings.TrimPrefix(strings.TrimSpace(cfg.KeyHex), "0x"))
		if err != nil {
			return nil, errors.New("ethchain: PROVENANT_ETH_PRIVATE_KEY is not a hex secp256k1 private key")
		}
		return key, nil
	}
	key, err := crypto.LoadECDSA(cfg.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("ethchain: --eth-key %s does not hold a hex secp256k1 private key (or cannot be read)", cfg.KeyFile)
	}
	return key, nil
}

// redactURL keeps an RPC URL's scheme and host: providers put API keys in
// the path, query or user info.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "the configured endpoint"
	}
	return u.Scheme + "://" + u.Host
}

// String describes cfg without its secrets (KeyHex, NodeKey) or the RPC
// URL's path and credentials, so that printing or logging a Config never
// leaks them.
func (cfg Config) String() string {
	where := "embedded"
	if cfg.RPCURL != "" {
		where = redactURL(cfg.RPCURL)
	}
	return fmt.Sprintf("ethchain.Config{rpc: %s, network: %s, name: %s, chain id: %d, public: %v, confirmations: %d}",
		where, cfg.Network, cfg.NetworkName, cfg.ChainID, cfg.Public, cfg.Confirmations)
}

// GoString is String, for %#v.
func (cfg Config) GoString() string { return cfg.String() }
