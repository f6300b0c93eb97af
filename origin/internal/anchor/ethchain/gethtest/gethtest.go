// Package gethtest starts a real geth --dev node for tests that anchor
// over JSON-RPC. It is imported by tests only.
package gethtest

import (
	"context"
	"errors"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/provenant/provenant/internal/testtool"
)

// gethBinary finds geth: $PATH, then $(go env GOPATH)/bin, then /root/go/bin.
// Without it the test skips, unless PROVENANT_REQUIRE_GETH is set (CI).
func gethBinary(t testing.TB) string {
	t.Helper()
	cands := []string{}
	if p, err := exec.LookPath("geth"); err == nil {
		cands = append(cands, p)
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		cands = append(cands, filepath.Join(string(out[:len(out)-1]), "bin", "geth"))
	}
	cands = append(cands, "/root/go/bin/geth")
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c
		}
	}
	msg := "geth not found (install: go install github.com/ethereum/go-ethereum/cmd/geth@v1.17.8)"
	if os.Getenv("PROVENANT_REQUIRE_GETH") != "" {
		t.Fatal(msg + " and PROVENANT_REQUIRE_GETH is set")
	}
	t.Skip(msg)
	return ""
}

// httpEndpoint is geth's log line naming the address its HTTP server
// listens on (its port is chosen by the kernel: a port found free and
// handed over could be taken by another process in between).
var httpEndpoint = regexp.MustCompile(`HTTP server started +endpoint=(\S+)`)

// Start starts geth --dev (chain id 1337) on loopback and returns its
// HTTP URL and a key file for a fresh account funded with 100 ETH from the
// dev account. geth is killed when the test ends. Without a geth binary
// the test is skipped, unless PROVENANT_REQUIRE_GETH is set (CI), when it
// fails.
func Start(t testing.TB) (url, keyFile string) {
	t.Helper()
	bin := gethBinary(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "--dev", "--datadir", filepath.Join(dir, "geth"),
		"--http", "--http.addr", "127.0.0.1", "--http.port", "0", "--http.api", "eth,net,web3",
		"--authrpc.addr", "127.0.0.1", "--authrpc.port", "0",
		"--ipcdisable", "--nodiscover", "--maxpeers", "0", "--port", "0", "--verbosity", "3",
		// A dev chain writes a few megabytes; geth's own guard would stop it
		// on a machine with under about 2 GiB free, failing the test for
		// a reason unrelated to it.
		"--datadir.minfreedisk", "64", "--cache", "256")
	logf, err := os.Create(filepath.Join(dir, "geth.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		testtool.Kill(cmd) // by pid; it is our child
		logf.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for url == "" {
		log, _ := os.ReadFile(logf.Name())
		if m := httpEndpoint.FindSubmatch(log); m != nil {
			url = "http://" + string(m[1])
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("geth did not start its HTTP server:\n%s", log)
		case <-time.After(50 * time.Millisecond):
		}
	}
	var c *rpc.Client
	for {
		c, err = rpc.DialContext(ctx, url)
		if err == nil {
			var id hexutil.Big
			if err = c.CallContext(ctx, &id, "eth_chainId"); err == nil {
				break
			}
			c.Close()
		}
		select {
		case <-ctx.Done():
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("geth did not answer: %v\n%s", err, log)
		case <-time.After(100 * time.Millisecond):
		}
	}
	defer c.Close()
	var accts []common.Address
	if err := c.CallContext(ctx, &accts, "eth_accounts"); err != nil || len(accts) == 0 {
		t.Fatalf("eth_accounts = %v, %v", accts, err)
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	keyFile = filepath.Join(dir, "anchor.key")
	if err := crypto.SaveECDSA(keyFile, key); err != nil {
		t.Fatal(err)
	}
	value := new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))
	var txHash common.Hash
	err = c.CallContext(ctx, &txHash, "eth_sendTransaction", map[string]any{
		"from": accts[0], "to": crypto.PubkeyToAddress(key.PublicKey), "value": (*hexutil.Big)(value),
	})
	if err != nil {
		t.Fatalf("fund anchoring key: %v", err)
	}
	for {
		var r map[string]any
		if err := c.CallContext(ctx, &r, "eth_getTransactionReceipt", txHash); err == nil && r != nil {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal(errors.New("funding tx not mined"))
		case <-time.After(20 * time.Millisecond):
		}
	}
	return url, keyFile
}
