package ethchain

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// Config selects and configures the anchoring chain. The origin maps its
// flags onto it: --eth-rpc → RPCURL, --eth-key → KeyFile, --eth-network →
// Network, --eth-confirmations → Confirmations. With RPCURL empty the
// embedded dev chain under DataDir/chain is used.
type Config struct {
	// RPCURL is an Ethereum JSON-RPC endpoint (http, ws or ipc). Empty = embedded chain.
	RPCURL string
	// KeyFile holds the sender's secp256k1 private key as hex (geth's
	// crypto.LoadECDSA format). Required with RPCURL. The key must be funded
	// and used by nothing else.
	KeyFile string
	// Network is the name proofs carry. Required with RPCURL; the embedded
	// chain always uses EmbeddedNetwork.
	Network string
	// Confirmations a batch needs before it is anchored (≥ 1). Zero means
	// 1 for the embedded chain and DefaultRPCConfirmations for RPC. Not used
	// by Open: the origin wiring passes it to anchor.Config.
	Confirmations uint64
	// DataDir is the origin's data dir; the embedded chain lives in DataDir/chain.
	DataDir string
	// AnchorAddress and GasLimit: as in ClientConfig.
	AnchorAddress string
	GasLimit      uint64
}

// DefaultRPCConfirmations is the confirmation depth for RPC chains when
// Config.Confirmations is zero.
const DefaultRPCConfirmations = 12

// Validate checks cfg and returns it with defaults filled in.
func (cfg Config) Validate() (Config, error) {
	if cfg.RPCURL == "" {
		if cfg.DataDir == "" {
			return cfg, errors.New("ethchain: DataDir is required for the embedded chain")
		}
		cfg.Network = EmbeddedNetwork
		if cfg.Confirmations == 0 {
			cfg.Confirmations = 1
		}
		return cfg, nil
	}
	if cfg.KeyFile == "" || cfg.Network == "" {
		return cfg, errors.New("ethchain: --eth-rpc needs --eth-key and --eth-network")
	}
	if cfg.Confirmations == 0 {
		cfg.Confirmations = DefaultRPCConfirmations
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
	key, err := crypto.LoadECDSA(cfg.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("ethchain: load key %s: %w", cfg.KeyFile, err)
	}
	client, err := ethclient.DialContext(ctx, cfg.RPCURL)
	if err != nil {
		return nil, fmt.Errorf("ethchain: dial %s: %w", cfg.RPCURL, err)
	}
	ch, err := New(ctx, ClientConfig{
		Client:        client,
		Key:           key,
		Network:       cfg.Network,
		AnchorAddress: cfg.AnchorAddress,
		GasLimit:      cfg.GasLimit,
		Closer:        func() error { client.Close(); return nil },
	})
	if err != nil {
		client.Close()
		return nil, err
	}
	return ch, nil
}
