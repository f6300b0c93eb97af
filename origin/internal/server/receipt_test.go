package server

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/provenant/provenant/shared/receipt"
)

// ethReader is a receipt.ChainReader over any Ethereum JSON-RPC endpoint,
// through go-ethereum's ethclient, as an integrator would write it.
type ethReader struct{ c *ethclient.Client }

func (e ethReader) ChainID(ctx context.Context) (uint64, error) {
	id, err := e.c.ChainID(ctx)
	if err != nil {
		return 0, err
	}
	return id.Uint64(), nil
}

func (e ethReader) Transaction(ctx context.Context, h [32]byte) (receipt.ChainTx, error) {
	tx, pending, err := e.c.TransactionByHash(ctx, common.Hash(h))
	if errors.Is(err, ethereum.NotFound) || (err == nil && pending) {
		return receipt.ChainTx{}, receipt.ErrTxNotFound
	}
	if err != nil {
		return receipt.ChainTx{}, err
	}
	rc, err := e.c.TransactionReceipt(ctx, common.Hash(h))
	if err != nil {
		return receipt.ChainTx{}, err
	}
	return receipt.ChainTx{Input: tx.Data(), BlockNumber: rc.BlockNumber.Uint64(), BlockHash: rc.BlockHash}, nil
}

func (e ethReader) CanonicalBlockHash(ctx context.Context, n uint64) ([32]byte, error) {
	h, err := e.c.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
	if err != nil {
		return [32]byte{}, err
	}
	return h.Hash(), nil
}

// chainRPCServer is anchoredServer with the embedded chain's read-only
// RPC on a free loopback port.
func chainRPCServer(t *testing.T) (*testServer, string) {
	ts := startServer(t, "", nil, func(c *Config, _ *deps) {
		c.Anchor.BatchSize = 1
		c.Anchor.PollInterval = 20 * time.Millisecond
		c.ChainRPCAddr = "127.0.0.1:0"
	})
	return ts, "http://" + ts.srv.ChainRPCAddr().String()
}

// TestReceiptChecksAgainstEmbeddedChainRPC: a signed record's receipt
// verifies offline and against the embedded chain's RPC with go-ethereum's
// ethclient; against another chain (a second origin's) it does not; the
// certificate names chain id and block hash; a pending record has no
// receipt yet.
func TestReceiptChecksAgainstEmbeddedChainRPC(t *testing.T) {
	ts, rpcURL := chainRPCServer(t)
	s := ts.newSignerOrg("desk@receipt.example", "Receipt News")
	r := ts.signFile(s, photo(t, 31, 384, 288), nil)
	ts.mustStatus(r, 201, "sign")
	id := r.header.Get("X-Record-Id")
	ts.waitAnchored(s, id)

	r = ts.do("GET", "/api/v1/content-records/"+id+"/receipt", "", nil)
	ts.mustStatus(r, 200, "receipt")
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("receipt Content-Type %q", ct)
	}
	etag := r.header.Get("ETag")
	rc, err := receipt.Parse(r.body)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, r.body)
	}
	res, err := rc.Verify()
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if res.Record.ID.String() != id || res.Record.Org != "Receipt News" || rc.ChainID != 1337 {
		t.Fatalf("receipt of %s: record %s org %q chain %d", id, res.Record.ID, res.Record.Org, rc.ChainID)
	}
	req, _ := http.NewRequest("GET", ts.base+"/api/v1/content-records/"+id+"/receipt", nil)
	req.Header.Set("If-None-Match", etag)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 304 {
		t.Errorf("If-None-Match with the receipt's ETag: %v %v, want 304", resp.StatusCode, err)
	}

	ctx := context.Background()
	ec, err := ethclient.Dial(rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	if err := rc.CheckChain(ctx, ethReader{ec}); err != nil {
		t.Fatalf("CheckChain against the embedded chain's RPC: %v", err)
	}
	head, err := ec.BlockNumber(ctx)
	if err != nil || head < rc.BlockNumber {
		t.Errorf("eth_blockNumber = %d, %v; want at least the anchor's block %d", head, err, rc.BlockNumber)
	}
	byHash, err := ec.HeaderByHash(ctx, common.HexToHash(rc.BlockHash))
	if err != nil || byHash.Number.Uint64() != rc.BlockNumber {
		t.Errorf("eth_getBlockByHash(%s): %v, %v", rc.BlockHash, byHash, err)
	}

	// The certificate and the record's proof carry chain id and block hash.
	cert := ts.do("GET", "/api/v1/content-records/"+id+"/certificate", "", nil).json(t)
	a, _ := cert["anchor"].(map[string]any)
	if a["chain_id"] != float64(1337) || a["block_hash"] != rc.BlockHash || a["tx_hash"] != rc.TxHash {
		t.Errorf("certificate anchor %v, want chain_id 1337, block_hash %s, tx_hash %s", a, rc.BlockHash, rc.TxHash)
	}
	detail := ts.do("GET", "/api/v1/content-records/"+id, s.apiKey, nil).json(t)
	proof, _ := detail["anchoring"].(map[string]any)["proof"].(map[string]any)
	if proof["chain_id"] != float64(1337) || proof["block_hash"] != rc.BlockHash {
		t.Errorf("record proof %v, want chain_id and block_hash", proof)
	}

	// Another origin's embedded chain (same chain id, other history) does
	// not hold the transaction.
	ots, otherURL := chainRPCServer(t)
	os := ots.newSignerOrg("desk@other.example", "Other News")
	r = ots.signFile(os, photo(t, 33, 384, 288), nil)
	ots.mustStatus(r, 201, "sign on the other origin")
	ots.waitAnchored(os, r.header.Get("X-Record-Id")) // its node has indexed transactions by now
	other, err := ethclient.Dial(otherURL)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := rc.CheckChain(ctx, ethReader{other}); !errors.Is(err, receipt.ErrChain) {
		t.Errorf("CheckChain against another chain: %v, want ErrChain", err)
	}

	// Pending: a record whose batch has not closed has no receipt yet.
	ts2 := startServer(t, "", nil, func(c *Config, _ *deps) { c.Anchor.BatchInterval = time.Hour })
	s2 := ts2.newSignerOrg("desk@pending.example", "Pending News")
	r = ts2.signFile(s2, photo(t, 32, 384, 288), nil)
	ts2.mustStatus(r, 201, "sign")
	r = ts2.do("GET", "/api/v1/content-records/"+r.header.Get("X-Record-Id")+"/receipt", "", nil)
	if r.status != 409 || r.problemCode(t) != "record_not_anchored" {
		t.Errorf("receipt of a pending record: %d %s, want 409 record_not_anchored", r.status, r.body)
	}
	r = ts2.do("GET", "/api/v1/content-records/00000000-0000-4000-8000-000000000000/receipt", "", nil)
	if r.status != 404 {
		t.Errorf("receipt of an unknown record: %d, want 404", r.status)
	}
}

// TestChainRPCIsReadOnly: the embedded chain's RPC answers the read
// methods and refuses writes, signing, admin and debug calls, alone or in
// a batch, with JSON-RPC error -32601.
func TestChainRPCIsReadOnly(t *testing.T) {
	ts, rpcURL := chainRPCServer(t)
	_ = ts
	ctx := context.Background()
	c, err := rpc.DialContext(ctx, rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var id string
	if err := c.CallContext(ctx, &id, "eth_chainId"); err != nil || id != "0x539" {
		t.Fatalf("eth_chainId = %q, %v; want 0x539", id, err)
	}
	for _, m := range []struct {
		method string
		args   []any
	}{
		{"eth_sendRawTransaction", []any{"0x02f86b"}},
		{"eth_sendTransaction", []any{map[string]string{"from": "0x0000000000000000000000000000000000000000"}}},
		{"eth_sign", []any{"0x0000000000000000000000000000000000000000", "0x00"}},
		{"eth_accounts", nil},
		{"eth_call", []any{map[string]string{"to": "0x0000000000000000000000000000000000000000"}, "latest"}},
		{"admin_nodeInfo", nil},
		{"debug_setHead", []any{"0x0"}},
		{"miner_start", nil},
		{"eth_subscribe", []any{"newHeads"}},
	} {
		var out any
		err := c.CallContext(ctx, &out, m.method, m.args...)
		var rpcErr rpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.ErrorCode() != -32601 || !strings.Contains(err.Error(), "read-only") {
			t.Errorf("%s: %v, want error -32601 read-only", m.method, err)
		}
	}
	batch := []rpc.BatchElem{{Method: "eth_blockNumber", Result: new(string)}, {Method: "eth_sendRawTransaction", Args: []any{"0x00"}, Result: new(string)}}
	if err := c.BatchCallContext(ctx, batch); err != nil {
		t.Fatal(err)
	}
	for _, b := range batch {
		if b.Error == nil {
			t.Errorf("batch with a write: %s answered, want the whole batch refused", b.Method)
		}
	}
	resp, err := http.Post(rpcURL, "application/json", bytes.NewReader(bytes.Repeat([]byte(" "), 70<<10)))
	if err == nil {
		resp.Body.Close()
	}
	if r, err := http.Get(rpcURL); err != nil || r.StatusCode != 405 {
		t.Errorf("GET on the RPC endpoint: %v %v, want 405", r, err)
	}
}
