package server

import (
	"encoding/hex"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/provenant/provenant/origin/internal/anchor/ethchain"
	"github.com/provenant/provenant/origin/internal/anchor/ethchain/gethtest"
	"github.com/provenant/provenant/shared/wire"
)

// TestOriginOnGethNetworks runs the origin against a real geth --dev
// (chain id 1337) over JSON-RPC: configured as the sepolia preset it
// refuses to start, naming both chain ids; configured as what it is
// (custom, chain id 1337, key from the environment form) it anchors, and
// verify, certificate and receipt describe the network as configured,
// not public; declared public with an explorer, the same anchor counts
// toward confidence and the certificate links the explorer. The key is
// never logged.
func TestOriginOnGethNetworks(t *testing.T) {
	url, keyFile := gethtest.Start(t)
	key, err := crypto.LoadECDSA(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	keyHex := hex.EncodeToString(crypto.FromECDSA(key))

	cfg := Config{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler), Password: cheapPassword}
	cfg.Anchor.Chain = ethchain.Config{RPCURL: url, KeyFile: keyFile, Network: "sepolia"}
	if srv, err := New(cfg); err == nil {
		_ = srv.Shutdown(t.Context())
		t.Fatal("the origin started on chain 1337 configured as sepolia")
	} else if msg := err.Error(); !strings.Contains(msg, "refusing to start") || !strings.Contains(msg, "1337") || !strings.Contains(msg, "11155111") {
		t.Fatalf("start error %q, want a refusal naming both chain ids", msg)
	}

	for _, tt := range []struct {
		name       string
		public     bool
		explorer   string
		confidence float64
	}{
		{"custom", false, "", 0.98},
		{"custom declared public", true, "https://explorer.example/tx/{tx}", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, "", nil, func(c *Config, _ *deps) {
				c.Anchor.Chain = ethchain.Config{RPCURL: url, KeyHex: keyHex, Network: ethchain.CustomNetwork, ChainID: 1337,
					NetworkName: "lab-geth", Public: tt.public, ExplorerTxURL: tt.explorer, Confirmations: 1}
				c.Anchor.BatchSize = 1
				c.Anchor.PollInterval = 20 * time.Millisecond
			})
			s := ts.newSignerOrg("desk@"+strings.ReplaceAll(tt.name, " ", "-")+".example", "Geth News")
			id, signed := ts.signAnchored(s, readTestdata(t, "water.jpg"), "sign")
			want := wire.Network{Name: "lab-geth", ChainID: 1337, Public: tt.public, ExplorerTxURL: tt.explorer}
			v := ts.verifyWire(signed)
			got := wire.Network{}
			if v.Network != nil {
				got = *v.Network
				got.Description = ""
			}
			if !v.Authentic || got != want || v.Confidence != tt.confidence || !v.Checks.Blockchain.Passed {
				t.Fatalf("verify authentic %v network %+v confidence %v blockchain %+v; want %+v at %v",
					v.Authentic, v.Network, v.Confidence, v.Checks.Blockchain, want, tt.confidence)
			}
			local := strings.Contains(v.Checks.Blockchain.Details, wire.LocalChainDescription)
			if local == tt.public {
				t.Errorf("blockchain details %q: local-chain wording %v, want %v", v.Checks.Blockchain.Details, local, !tt.public)
			}
			r := ts.sendWith("GET", "/api/v1/content-records/"+id+"/certificate", map[string]string{"Accept": "text/html"})
			ts.mustStatus(r, 200, "certificate page")
			link := `href="https://explorer.example/tx/` + v.BlockchainTx + `"`
			if strings.Contains(string(r.body), link) != tt.public {
				t.Errorf("certificate page explorer link present %v, want %v", !tt.public, tt.public)
			}
			if strings.Contains(ts.logs.String(), keyHex) {
				t.Error("the sender's private key reached the log")
			}
		})
	}
}
