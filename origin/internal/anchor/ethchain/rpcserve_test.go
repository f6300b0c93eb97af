package ethchain

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestReadOnlyHandler: only the read methods reach the node; every other
// call, alone or in a batch, is answered -32601 by the filter; bodies are
// bounded and only POST is served.
func TestReadOnlyHandler(t *testing.T) {
	var reached []string
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		reached = append(reached, string(b))
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":"0x539"}`))
	})
	srv := httptest.NewServer(ReadOnlyHandler(next))
	defer srv.Close()
	post := func(body string) (int, string) {
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, m := range ReadOnlyMethods {
		reached = nil
		body := `{"jsonrpc":"2.0","id":1,"method":"` + m + `","params":[]}`
		if _, out := post(body); !strings.Contains(out, "0x539") || len(reached) != 1 || reached[0] != body {
			t.Errorf("%s: answered %s, node saw %q; want it passed through unchanged", m, out, reached)
		}
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"eth_sendRawTransaction","params":["0x00"]}`,
		`{"jsonrpc":"2.0","id":7,"method":"personal_unlockAccount","params":[]}`,
		`{"jsonrpc":"2.0","id":7,"method":"ETH_CHAINID"}`,
		`{"jsonrpc":"2.0","id":7}`,
		`[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"eth_sendTransaction"}]`,
	} {
		reached = nil
		_, out := post(body)
		if !strings.Contains(out, "-32601") || !strings.Contains(out, "read-only") || len(reached) != 0 {
			t.Errorf("%s: answered %s, node saw %d requests; want -32601 and nothing passed", body, out, len(reached))
		}
	}
	for _, body := range []string{"", "{", "[]", "[" + strings.Repeat(`{"method":"eth_chainId"},`, 40) + `{"method":"eth_chainId"}]`} {
		reached = nil
		if _, out := post(body); !strings.Contains(out, `"error"`) || len(reached) != 0 {
			t.Errorf("body %.40q: answered %s, node saw %d requests", body, out, len(reached))
		}
	}
	reached = nil
	if _, out := post(`{"method":"eth_chainId","params":["` + strings.Repeat("a", 70<<10) + `"]}`); len(reached) != 0 || !strings.Contains(out, "64 KiB") {
		t.Errorf("a body over 64 KiB: answered %.80s, node saw %d requests", out, len(reached))
	}
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("GET: %d, want 405", resp.StatusCode)
	}
}
