package client

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/provenant/provenant/shared/receipt"
	"github.com/provenant/provenant/shared/wire"
)

// ReceiptBytes downloads a record's offline receipt (docs/receipt.md)
// exactly as the origin serves it, after checking that it parses and
// verifies offline. Before the record is anchored the origin answers the
// *Error record_not_anchored (409).
func (c *Client) ReceiptBytes(ctx context.Context, id string) ([]byte, error) {
	resp, err := c.send(ctx, request{method: http.MethodGet, path: "/api/v1/content-records/" + seg(id) + "/receipt"})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, receipt.MaxSize+1))
	if err != nil {
		return nil, &NetworkError{Method: http.MethodGet, URL: redact(resp.Request.URL), Err: err}
	}
	r, err := receipt.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("client: the origin's receipt: %w", err)
	}
	// A receipt stating that the signing key was revoked is still the
	// record's receipt: the caller's check reports it.
	if _, err := r.Verify(); err != nil && !errors.Is(err, receipt.ErrKeyRevoked) {
		return nil, fmt.Errorf("client: the origin's receipt: %w", err)
	}
	if r.RecordID != strings.ToLower(id) {
		return nil, fmt.Errorf("client: the origin sent the receipt of record %s, not %s", r.RecordID, id)
	}
	return b, nil
}

// ReceiptCheck is what [VerifyReceipt] established.
type ReceiptCheck struct {
	Receipt *receipt.Receipt
	Result  receipt.Result
	// ChainChecked is true when the anchor was confirmed on a chain node.
	ChainChecked bool
	// Head is the node's latest block number (with ChainChecked), to judge
	// the confirmations: Head - Receipt.BlockNumber + 1.
	Head uint64
}

// KeyRevoked reports whether the receipt carries the service's statement
// that the record's signing key was revoked before the record was
// anchored (key_revocation decision not_authentic). The rest of the
// receipt still verifies: the record was signed and anchored, but its
// signer disowned the key from an earlier time.
func (c *ReceiptCheck) KeyRevoked() bool {
	return c.Receipt.KeyRevocation != nil && c.Receipt.KeyRevocation.Decision == wire.KeyDecisionNotAuthentic
}

// Confirmations returns how many blocks confirm the anchor (0 unless the
// chain was checked).
func (c *ReceiptCheck) Confirmations() uint64 {
	if !c.ChainChecked || c.Head < c.Receipt.BlockNumber {
		return 0
	}
	return c.Head - c.Receipt.BlockNumber + 1
}

// VerifyReceipt checks a receipt with the shared code and nothing from
// the origin: offline (signature, leaf, inclusion proof), and, when chain
// is not nil, the anchor on that chain (shared/receipt CheckChain). Errors
// wrap the receipt package's sentinels (receipt.ErrSignature,
// receipt.ErrInclusion, receipt.ErrChain, receipt.ErrChainUnavailable, …).
// A receipt whose proofs hold but which states that the signing key was
// revoked before the record was anchored returns the check (without the
// chain lookup) and an error wrapping receipt.ErrKeyRevoked.
func VerifyReceipt(ctx context.Context, b []byte, chain *RPCChain) (*ReceiptCheck, error) {
	r, err := receipt.Parse(b)
	if err != nil {
		return nil, err
	}
	res, err := r.Verify()
	out := &ReceiptCheck{Receipt: r, Result: res}
	if errors.Is(err, receipt.ErrKeyRevoked) {
		return out, err
	}
	if err != nil {
		return nil, err
	}
	if chain == nil {
		return out, nil
	}
	if err := r.CheckChain(ctx, chain); err != nil {
		return out, err
	}
	out.ChainChecked = true
	head, err := chain.BlockNumber(ctx)
	if err != nil {
		return out, fmt.Errorf("%w: head: %w", receipt.ErrChainUnavailable, err)
	}
	out.Head = head
	return out, nil
}

// RPCChain reads an Ethereum chain over JSON-RPC 2.0 (HTTP POST): the
// receipt.ChainReader that [VerifyReceipt] uses. Any node works: a public
// provider, one's own node, or an origin's embedded chain
// (--chain-rpc-listen).
type RPCChain struct {
	url string
	hc  *http.Client
	id  atomic.Int64
}

// NewRPCChain returns a reader of the node at url; hc nil means
// http.DefaultClient (bound calls with the context).
func NewRPCChain(url string, hc *http.Client) *RPCChain {
	if hc == nil {
		hc = http.DefaultClient
	}
	return &RPCChain{url: url, hc: hc}
}

var _ receipt.ChainReader = (*RPCChain)(nil)

// maxRPCAnswer bounds a JSON-RPC answer (a block without transactions
// bodies is a few KiB).
const maxRPCAnswer = 1 << 20

// RPCError is an error object of a JSON-RPC answer.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("json-rpc error %d: %s", e.Code, e.Message) }

func (c *RPCChain) call(ctx context.Context, method string, out any, params ...any) error {
	if params == nil {
		params = []any{}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id.Add(1), "method": method, "params": params})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d", method, resp.StatusCode)
	}
	var ans struct {
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxRPCAnswer)).Decode(&ans); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if ans.Error != nil {
		return fmt.Errorf("%s: %w", method, ans.Error)
	}
	if err := json.Unmarshal(ans.Result, out); err != nil {
		return fmt.Errorf("%s: result: %w", method, err)
	}
	return nil
}

func parseQuantity(s string) (uint64, error) {
	if !strings.HasPrefix(s, "0x") {
		return 0, fmt.Errorf("quantity %q has no 0x prefix", s)
	}
	return strconv.ParseUint(s[2:], 16, 64)
}

func parseHash(s string) ([32]byte, error) {
	var h [32]byte
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil || len(b) != 32 || !strings.HasPrefix(s, "0x") {
		return h, fmt.Errorf("hash %q is not 0x and 64 hex digits", s)
	}
	copy(h[:], b)
	return h, nil
}

// ChainID calls eth_chainId.
func (c *RPCChain) ChainID(ctx context.Context) (uint64, error) {
	var s string
	if err := c.call(ctx, "eth_chainId", &s); err != nil {
		return 0, err
	}
	return parseQuantity(s)
}

// BlockNumber calls eth_blockNumber: the node's head.
func (c *RPCChain) BlockNumber(ctx context.Context) (uint64, error) {
	var s string
	if err := c.call(ctx, "eth_blockNumber", &s); err != nil {
		return 0, err
	}
	return parseQuantity(s)
}

// Transaction calls eth_getTransactionByHash and, for a mined one,
// eth_getTransactionReceipt, which must name the same block and report
// success; an unknown or pending transaction is receipt.ErrTxNotFound.
func (c *RPCChain) Transaction(ctx context.Context, hash [32]byte) (receipt.ChainTx, error) {
	h := "0x" + hex.EncodeToString(hash[:])
	var tx *struct {
		Input       string  `json:"input"`
		BlockNumber *string `json:"blockNumber"`
		BlockHash   *string `json:"blockHash"`
	}
	if err := c.call(ctx, "eth_getTransactionByHash", &tx, h); err != nil {
		return receipt.ChainTx{}, err
	}
	if tx == nil || tx.BlockNumber == nil || tx.BlockHash == nil {
		return receipt.ChainTx{}, receipt.ErrTxNotFound
	}
	var out receipt.ChainTx
	var err error
	if out.Input, err = hex.DecodeString(strings.TrimPrefix(tx.Input, "0x")); err != nil {
		return out, fmt.Errorf("transaction input: %w", err)
	}
	if out.BlockNumber, err = parseQuantity(*tx.BlockNumber); err != nil {
		return out, err
	}
	if out.BlockHash, err = parseHash(*tx.BlockHash); err != nil {
		return out, err
	}
	var rc *struct {
		Status    string `json:"status"`
		BlockHash string `json:"blockHash"`
	}
	if err := c.call(ctx, "eth_getTransactionReceipt", &rc, h); err != nil {
		return out, err
	}
	if rc == nil {
		return out, receipt.ErrTxNotFound
	}
	if rc.BlockHash != *tx.BlockHash {
		return out, fmt.Errorf("%w: the transaction receipt names block %s, the transaction %s", receipt.ErrChain, rc.BlockHash, *tx.BlockHash)
	}
	if rc.Status != "0x1" {
		return out, fmt.Errorf("%w: transaction %s failed (status %s)", receipt.ErrChain, h, rc.Status)
	}
	return out, nil
}

// CanonicalBlockHash calls eth_getBlockByNumber.
func (c *RPCChain) CanonicalBlockHash(ctx context.Context, number uint64) ([32]byte, error) {
	var b *struct {
		Hash string `json:"hash"`
	}
	if err := c.call(ctx, "eth_getBlockByNumber", &b, "0x"+strconv.FormatUint(number, 16), false); err != nil {
		return [32]byte{}, err
	}
	if b == nil {
		return [32]byte{}, errors.New("no such block")
	}
	return parseHash(b.Hash)
}
