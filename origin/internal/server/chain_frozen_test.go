package server

import (
	"encoding/hex"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/provenant/provenant/origin/internal/anchor/ethchain"
	"github.com/provenant/provenant/origin/internal/anchor/ethchain/gethtest"
)

// freezer is a TCP proxy on loopback that can stop forwarding while
// keeping every connection open and accepting new ones: a node that is
// frozen, not dead.
type freezer struct {
	ln     net.Listener
	target string
	frozen atomic.Bool
	mu     sync.Mutex
	conns  []net.Conn
}

func newFreezer(t *testing.T, target string) *freezer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{ln: ln, target: target}
	t.Cleanup(func() {
		ln.Close()
		f.mu.Lock()
		for _, c := range f.conns {
			c.Close()
		}
		f.mu.Unlock()
	})
	go f.serve()
	return f
}

func (f *freezer) serve() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", f.target)
		if err != nil {
			c.Close()
			continue
		}
		f.mu.Lock()
		f.conns = append(f.conns, c, up)
		f.mu.Unlock()
		go f.pipe(up, c)
		go f.pipe(c, up)
	}
}

// pipe copies src to dst, holding every chunk while frozen.
func (f *freezer) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		for f.frozen.Load() {
			time.Sleep(10 * time.Millisecond)
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				dst.Close()
			}
			return
		}
	}
}

// TestFrozenChainCostsAtMostTheReadTimeout: with the Ethereum node frozen
// (it accepts connections and never answers), verify, the record detail,
// the public certificate and the receipt of an anchored record each answer
// within the chain read timeout (1 s here) plus a margin, as when the
// node is down: verify and the record detail say the anchoring state is
// unavailable, the certificate answers from the stored proof, the
// receipt is refused (409, not anchored as far as can be checked); once
// the node answers again, verify passes its blockchain check again.
func TestFrozenChainCostsAtMostTheReadTimeout(t *testing.T) {
	url, keyFile := gethtest.Start(t)
	key, err := crypto.LoadECDSA(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	fz := newFreezer(t, strings.TrimPrefix(url, "http://"))
	const timeout = time.Second
	ts := startServer(t, "", nil, func(c *Config, _ *deps) {
		c.Anchor.Chain = ethchain.Config{RPCURL: "http://" + fz.ln.Addr().String(), KeyHex: hex.EncodeToString(crypto.FromECDSA(key)),
			Network: ethchain.CustomNetwork, ChainID: 1337, NetworkName: "lab-geth", Confirmations: 1}
		c.Anchor.BatchSize = 1
		c.Anchor.PollInterval = 20 * time.Millisecond
		c.Anchor.ReadTimeout = timeout
	})
	s := ts.newSignerOrg("frozen@example.com", "Frozen News")
	signed, id := ts.signTestdata(s, "water.jpg", "sign")
	ts.waitAnchored(s, id)

	fz.frozen.Store(true)
	timed := func(what string, fn func() response) response {
		t.Helper()
		start := time.Now()
		done := make(chan response, 1)
		go func() { done <- fn() }()
		var r response
		select {
		case r = <-done:
		case <-time.After(2*timeout + 10*time.Second):
			t.Fatalf("%s still waiting %v after the node froze", what, time.Since(start).Round(time.Second))
		}
		took := time.Since(start)
		t.Logf("%s with the node frozen: %d in %v", what, r.status, took.Round(time.Millisecond))
		// Two anchoring reads at most per request, each bounded.
		if took > 2*timeout+3*time.Second {
			t.Errorf("%s took %v with the node frozen, want at most the read timeout and a margin", what, took)
		}
		return r
	}
	v := timed("verify", func() response {
		return ts.upload("/api/v1/verify", "", []namedFile{{"file", "x.jpg", signed}}, nil)
	})
	ts.mustStatus(v, 200, "verify")
	if m := v.json(t); !strings.Contains(strings.ToLower(string(v.body)), "unavailable") {
		t.Errorf("verify with the node frozen does not say unavailable: %v", m["checks"])
	}
	d := timed("record detail", func() response { return ts.do("GET", "/api/v1/content-records/"+id, s.apiKey, nil) })
	ts.mustStatus(d, 200, "record detail")
	if d.json(t)["blockchain_status"] == "anchored" && !strings.Contains(string(d.body), "unavailable") {
		t.Errorf("record detail with the node frozen: %s", d.body)
	}
	c := timed("certificate", func() response {
		return ts.sendWith("GET", "/api/v1/content-records/"+id+"/certificate", map[string]string{"Accept": "application/json"})
	})
	// The certificate is the stored record and proof; it reads the chain
	// for the anchoring state and answers without it past the timeout.
	ts.mustStatus(c, 200, "certificate")
	rc := timed("receipt", func() response {
		return ts.sendWith("GET", "/api/v1/content-records/"+id+"/receipt", nil)
	})
	if rc.status < 400 || rc.status == 500 {
		t.Errorf("receipt with the node frozen: %d %.300s, want a refusal that is not a 500", rc.status, rc.body)
	}

	fz.frozen.Store(false)
	if v := ts.verifyWire(signed); !v.Checks.Blockchain.Passed {
		t.Errorf("verify after the node answers again: blockchain %+v", v.Checks.Blockchain)
	}
}
