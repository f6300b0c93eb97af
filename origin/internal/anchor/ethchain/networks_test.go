package ethchain_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/provenant/provenant/origin/internal/anchor/ethchain"
	"github.com/provenant/provenant/shared/wire"
)

// TestValidateNetworks: presets fill chain id, confirmation rule,
// explorer and fee ceiling and are public; custom needs a chain id and a
// name and is not public unless said; the embedded chain is never public;
// contradictions and unknown names are refused with the choices spelt out.
func TestValidateNetworks(t *testing.T) {
	for _, tt := range []struct {
		name    string
		cfg     ethchain.Config
		wantErr string
		want    wire.Network
		conf    uint64
		final   bool
	}{
		{"embedded", ethchain.Config{DataDir: "d"}, "", wire.Network{Name: "provenant-dev", ChainID: 1337, Description: wire.LocalChainDescription}, 1, false},
		{"preset without rpc", ethchain.Config{DataDir: "d", Network: "sepolia"}, "needs --eth-rpc", wire.Network{}, 0, false},
		{"sepolia", ethchain.Config{RPCURL: "http://x", KeyFile: "k", Network: "sepolia"}, "",
			wire.Network{Name: "sepolia", ChainID: 11155111, Public: true, ExplorerTxURL: "https://sepolia.etherscan.io/tx/{tx}"}, 12, true},
		{"base", ethchain.Config{RPCURL: "http://x", KeyFile: "k", Network: "base"}, "",
			wire.Network{Name: "base", ChainID: 8453, Public: true, ExplorerTxURL: "https://basescan.org/tx/{tx}"}, 10, false},
		{"preset with its own chain id", ethchain.Config{RPCURL: "http://x", KeyFile: "k", Network: "mainnet", ChainID: 1}, "",
			wire.Network{Name: "mainnet", ChainID: 1, Public: true, ExplorerTxURL: "https://etherscan.io/tx/{tx}"}, 12, true},
		{"preset with another chain id", ethchain.Config{RPCURL: "http://x", KeyFile: "k", Network: "optimism", ChainID: 1337}, "contradicts", wire.Network{}, 0, false},
		{"custom", ethchain.Config{RPCURL: "http://x", KeyHex: "ab", Network: "custom", ChainID: 1337, NetworkName: "lab"}, "",
			wire.Network{Name: "lab", ChainID: 1337, Description: wire.LocalChainDescription}, 12, false},
		{"custom public", ethchain.Config{RPCURL: "http://x", KeyFile: "k", Network: "custom", ChainID: 42, NetworkName: "lab", Public: true,
			ExplorerTxURL: "https://lab.example/tx/{tx}"}, "", wire.Network{Name: "lab", ChainID: 42, Public: true, ExplorerTxURL: "https://lab.example/tx/{tx}"}, 12, false},
		{"custom without chain id", ethchain.Config{RPCURL: "http://x", KeyFile: "k", Network: "custom", NetworkName: "lab"}, "--eth-chain-id", wire.Network{}, 0, false},
		{"custom named like a preset", ethchain.Config{RPCURL: "http://x", KeyFile: "k", Network: "custom", ChainID: 1, NetworkName: "mainnet"}, "reserved", wire.Network{}, 0, false},
		{"explorer on a private chain", ethchain.Config{RPCURL: "http://x", KeyFile: "k", Network: "custom", ChainID: 1, NetworkName: "lab",
			ExplorerTxURL: "https://lab.example/tx/{tx}"}, "public chain", wire.Network{}, 0, false},
		{"unknown", ethchain.Config{RPCURL: "http://x", KeyFile: "k", Network: "goerli"}, "base, base-sepolia, mainnet, op-sepolia, optimism, sepolia", wire.Network{}, 0, false},
		{"no key", ethchain.Config{RPCURL: "http://x", Network: "sepolia"}, "PROVENANT_ETH_PRIVATE_KEY", wire.Network{}, 0, false},
		{"two keys", ethchain.Config{RPCURL: "http://x", KeyFile: "k", KeyHex: "ab", Network: "sepolia"}, "not both", wire.Network{}, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := tt.cfg.Validate()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Validate = %v, want an error saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			again, err := cfg.Validate()
			if err != nil || again.NetworkName != cfg.NetworkName || again.ChainID != cfg.ChainID {
				t.Fatalf("Validate is not idempotent: %+v, %v", again, err)
			}
			got := *cfg.Describe()
			if got.Public {
				got.Description = "" // free text for public networks
			}
			if got != tt.want || cfg.Confirmations != tt.conf || cfg.RequireFinalized != tt.final {
				t.Errorf("network %+v confirmations %d finalized %v, want %+v %d %v", got, cfg.Confirmations, cfg.RequireFinalized, tt.want, tt.conf, tt.final)
			}
			if tt.want.Public && (cfg.MaxFeeCap == nil || cfg.MaxFeeCap.Sign() <= 0) && tt.cfg.Network != "custom" {
				t.Errorf("preset without a fee ceiling: %v", cfg.MaxFeeCap)
			}
		})
	}
}

// TestGethPresetMismatchRefuses: a real geth --dev (chain id 1337)
// configured as a named public preset, or as a custom chain of another id,
// refuses to start with an error naming both ids; the key from the
// environment form is never quoted, even when malformed.
func TestGethPresetMismatchRefuses(t *testing.T) {
	url, keyFile := startGethDev(t)
	ctx := context.Background()
	for _, cfg := range []ethchain.Config{
		{RPCURL: url, KeyFile: keyFile, Network: "sepolia"},
		{RPCURL: url, KeyFile: keyFile, Network: "base"},
		{RPCURL: url, KeyFile: keyFile, Network: "custom", ChainID: 31337, NetworkName: "lab"},
	} {
		ch, err := ethchain.Open(ctx, cfg)
		if err == nil {
			ch.Close()
			t.Fatalf("%s: Open succeeded against chain 1337", cfg.Network)
		}
		want := cfg.ChainID
		if want == 0 {
			want = ethchain.Presets()[cfg.Network].ChainID
		}
		for _, s := range []string{"refusing to start", "chain id 1337", "expects chain id " + itoa(want)} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q lacks %q", cfg.Network, err, s)
			}
		}
	}
	const bad = "0xnot-a-key-but-secret-looking-5f3a"
	_, err := ethchain.Open(ctx, ethchain.Config{RPCURL: url, KeyHex: bad, Network: "custom", ChainID: 1337, NetworkName: "lab"})
	if err == nil || strings.Contains(err.Error(), "secret-looking") {
		t.Errorf("malformed key: error %v, want one that does not quote the key", err)
	}
}

// TestGethCustomAnchors: geth --dev as --eth-network custom with its chain
// id (key given in the environment form) anchors, and the network
// description says what was configured.
func TestGethCustomAnchors(t *testing.T) {
	url, keyFile := startGethDev(t)
	key, err := crypto.LoadECDSA(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ethchain.Config{RPCURL: url, KeyHex: hex.EncodeToString(crypto.FromECDSA(key)), Network: "custom", ChainID: 1337, NetworkName: "geth-dev"}.Validate()
	if err != nil {
		t.Fatal(err)
	}
	ch, err := ethchain.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	if ch.Network() != "geth-dev" || ch.ChainID() != 1337 {
		t.Fatalf("chain %s/%d, want geth-dev/1337", ch.Network(), ch.ChainID())
	}
	stx, inc := sendRoot(t, ch, rootN(1))
	checkChainHolds(t, ch, stx.Hash, rootN(1), inc.BlockNumber)
	if n := *cfg.Describe(); n != (wire.Network{Name: "geth-dev", ChainID: 1337, Description: wire.LocalChainDescription}) {
		t.Errorf("network %+v, want geth-dev 1337 not public", n)
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// TestConfigPrintsNoSecret: however a Config is printed, the private key,
// the node key and the RPC URL's credentials stay out.
func TestConfigPrintsNoSecret(t *testing.T) {
	cfg := ethchain.Config{RPCURL: "https://user:pw@rpc.example/v3/apikey123", KeyHex: "deadbeefcafe", NodeKey: []byte("node-secret"), Network: "sepolia"}
	for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(f, cfg)
		for _, secret := range []string{"deadbeefcafe", "node-secret", "apikey123", "pw@"} {
			if strings.Contains(out, secret) {
				t.Errorf("%s printed %q", f, out)
			}
		}
	}
}
