package ethchain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
)

// ReadOnlyMethods are the JSON-RPC methods ReadOnlyHandler serves: enough
// to check an anchor the way one would on a public network (chain id, the
// transaction and its receipt, blocks by number or hash, the head), and
// nothing that writes, signs, subscribes or reveals the node's accounts.
var ReadOnlyMethods = []string{
	"eth_chainId",
	"eth_blockNumber",
	"eth_getTransactionByHash",
	"eth_getTransactionReceipt",
	"eth_getBlockByNumber",
	"eth_getBlockByHash",
}

// maxRPCRequest bounds a JSON-RPC request body; the allowed calls are a
// few hundred bytes each.
const maxRPCRequest = 64 << 10

// maxRPCBatch bounds the calls in one batch request.
const maxRPCBatch = 32

// JSON-RPC 2.0 error codes used by the filter.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcMethodNotFound = -32601
)

// errNoRPC: the chain is reached over RPC, so there is no in-process
// server to expose.
var errNoRPC = errors.New("ethchain: the chain has no in-process RPC server")

// ReadOnlyHandler serves JSON-RPC 2.0 over HTTP POST from next (the
// embedded node's in-process RPC server), passing on only requests whose
// every call is one of ReadOnlyMethods. Any other method (a write such as
// eth_sendRawTransaction, admin_*, debug_*, personal_*, miner_*) is
// answered with error -32601 without reaching next; a batch holding one is
// refused whole. Bodies are bounded (64 KiB, 32 calls per batch).
func ReadOnlyHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			http.Error(w, "JSON-RPC over POST only", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRPCRequest))
		if err != nil {
			writeRPCError(w, nil, rpcInvalidRequest, "request body over 64 KiB")
			return
		}
		body = bytes.TrimSpace(body)
		type call struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		var calls []call
		batch := len(body) > 0 && body[0] == '['
		if batch {
			err = json.Unmarshal(body, &calls)
		} else {
			var c call
			err = json.Unmarshal(body, &c)
			calls = []call{c}
		}
		if err != nil {
			writeRPCError(w, nil, rpcParseError, "parse error")
			return
		}
		if len(calls) == 0 || len(calls) > maxRPCBatch {
			writeRPCError(w, nil, rpcInvalidRequest, fmt.Sprintf("a batch holds 1 to %d calls", maxRPCBatch))
			return
		}
		for _, c := range calls {
			if slices.Contains(ReadOnlyMethods, c.Method) {
				continue
			}
			msg := fmt.Sprintf("method %q is not served: this endpoint is read-only (%v)", c.Method, ReadOnlyMethods)
			if !batch {
				writeRPCError(w, c.ID, rpcMethodNotFound, msg)
				return
			}
			out := make([]rpcError, len(calls))
			for i, c2 := range calls {
				out[i] = newRPCError(c2.ID, rpcMethodNotFound, msg)
			}
			writeJSON(w, out)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func newRPCError(id json.RawMessage, code int, msg string) rpcError {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	e := rpcError{JSONRPC: "2.0", ID: id}
	e.Error.Code, e.Error.Message = code, msg
	return e
}

func writeRPCError(w http.ResponseWriter, id json.RawMessage, code int, msg string) {
	writeJSON(w, newRPCError(id, code, msg))
}

func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// ReadOnlyRPC returns the embedded chain's read-only JSON-RPC handler
// (ReadOnlyHandler over the node's in-process server). A chain reached
// over RPC has none: the operator's node serves its own.
func (c *Chain) ReadOnlyRPC() (http.Handler, error) {
	if c.rpc == nil {
		return nil, errNoRPC
	}
	return ReadOnlyHandler(c.rpc), nil
}
