package ethchain

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/provenant/provenant/shared/wire"
)

// CustomNetwork is the --eth-network value for a chain that is not a
// preset: its chain id and name are then given explicitly.
const CustomNetwork = "custom"

// Preset is a known Ethereum network: what --eth-network NAME configures.
type Preset struct {
	// Name is the flag value and the network name proofs carry.
	Name string
	// ChainID is the EIP-155 chain id the RPC endpoint must answer.
	ChainID uint64
	// Confirmations a batch needs before it counts as anchored.
	Confirmations uint64
	// RequireFinalized also waits for the chain's "finalized" block tag
	// (Ethereum L1 proof-of-stake finality, about 13 minutes).
	RequireFinalized bool
	// ExplorerTxURL is a block explorer's transaction page, "{tx}" standing
	// for the 0x transaction hash.
	ExplorerTxURL string
	// MaxFeeGwei is the default fee ceiling (max fee per gas) in gwei; the
	// batcher never bids above it (anchor.Config.MaxFeeCap).
	MaxFeeGwei float64
}

// gwei is 10^9 wei.
var gwei = big.NewFloat(1e9)

// MaxFeeCap is the preset's fee ceiling in wei per gas.
func (p Preset) MaxFeeCap() *big.Int {
	w, _ := new(big.Float).Mul(big.NewFloat(p.MaxFeeGwei), gwei).Int(nil)
	return w
}

// Presets returns the known public networks, by name. Confirmation rules:
// Ethereum mainnet and Sepolia wait for the finalized tag (a batch is
// then irreversible without slashing a third of the stake); the OP-stack
// rollups (Base, Optimism) include a transaction within seconds and a
// reorg of their unsafe head is rare, so 10 blocks (20 s) is the default,
// with --eth-confirmations to raise it. Fee ceilings are far above the
// usual price of each network and bound only runaway fees.
func Presets() map[string]Preset {
	return map[string]Preset{
		"mainnet":      {Name: "mainnet", ChainID: 1, Confirmations: 12, RequireFinalized: true, ExplorerTxURL: "https://etherscan.io/tx/{tx}", MaxFeeGwei: 100},
		"sepolia":      {Name: "sepolia", ChainID: 11155111, Confirmations: 12, RequireFinalized: true, ExplorerTxURL: "https://sepolia.etherscan.io/tx/{tx}", MaxFeeGwei: 200},
		"base":         {Name: "base", ChainID: 8453, Confirmations: 10, ExplorerTxURL: "https://basescan.org/tx/{tx}", MaxFeeGwei: 1},
		"base-sepolia": {Name: "base-sepolia", ChainID: 84532, Confirmations: 10, ExplorerTxURL: "https://sepolia.basescan.org/tx/{tx}", MaxFeeGwei: 1},
		"optimism":     {Name: "optimism", ChainID: 10, Confirmations: 10, ExplorerTxURL: "https://optimistic.etherscan.io/tx/{tx}", MaxFeeGwei: 1},
		"op-sepolia":   {Name: "op-sepolia", ChainID: 11155420, Confirmations: 10, ExplorerTxURL: "https://sepolia-optimism.etherscan.io/tx/{tx}", MaxFeeGwei: 1},
	}
}

// presetNames lists the preset names in order, for error messages.
func presetNames() string {
	var n []string
	for k := range Presets() {
		n = append(n, k)
	}
	sort.Strings(n)
	return strings.Join(n, ", ")
}

// Describe returns the network description every surface carries for a
// validated cfg: the embedded chain is never public and says so in reader
// words (wire.LocalChainDescription).
func (cfg Config) Describe() *wire.Network {
	if cfg.RPCURL == "" {
		return &wire.Network{Name: EmbeddedNetwork, ChainID: EmbeddedChainID, Description: wire.LocalChainDescription}
	}
	n := &wire.Network{Name: cfg.NetworkName, ChainID: cfg.ChainID, Public: cfg.Public}
	if !n.Public {
		n.Description = wire.LocalChainDescription
		return n
	}
	n.ExplorerTxURL = cfg.ExplorerTxURL
	n.Description = fmt.Sprintf("public network %s: anyone can read the anchoring transaction from any node of chain %d", n.Name, n.ChainID)
	return n
}
