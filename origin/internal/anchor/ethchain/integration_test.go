package ethchain_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/anchor/ethchain"
	"github.com/provenant/provenant/origin/internal/store"
)

// The crash helper: the test binary re-executed as "the origin" on a data
// dir, killed with SIGKILL at a chosen point. Configured through env.
const (
	envHelper    = "PROVENANT_ANCHOR_HELPER"  // data dir
	envRPC       = "PROVENANT_ANCHOR_RPC"     // RPC URL; embedded chain if empty
	envKeyFile   = "PROVENANT_ANCHOR_KEYFILE" // key file for RPC
	envRecords   = "PROVENANT_ANCHOR_RECORDS" // records to enqueue
	envBatch     = "PROVENANT_ANCHOR_BATCH"   // batch size
	envKillAt    = "PROVENANT_ANCHOR_KILL_AT" // "persist:N" or "broadcast:N": SIGKILL at the Nth event
	helperExitOK = 0
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envHelper); dir != "" {
		if err := runHelper(dir); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(3)
		}
		os.Exit(helperExitOK)
	}
	os.Exit(m.Run())
}

// recordLeaf is the leaf hash of test record i (signing is not part of this package).
func recordLeaf(i int) anchor.Hash {
	var b [9]byte
	binary.BigEndian.PutUint64(b[1:], uint64(i))
	return anchor.Hash(sha256.Sum256(b[:]))
}

func recordName(i int) string { return fmt.Sprintf("rec-%06d", i) }

// origin is the part of the origin that anchoring needs: store, chain, batcher.
type origin struct {
	st    *store.Badger
	chain *ethchain.Chain
	b     *anchor.Batcher
}

// crashPoints are where the crash helper kills itself: after a signed
// transaction is persisted and before it is broadcast, or after the node
// accepted it. Nil functions do nothing.
type crashPoints struct {
	afterPersist, afterBroadcast func()
}

// crashChain puts crashPoints around Broadcast. The batcher broadcasts a
// transaction only after persisting it, so the first Broadcast of given
// bytes is the moment between the two; a later one is a rebroadcast.
type crashChain struct {
	anchor.Chain
	at   crashPoints
	mu   sync.Mutex
	sent map[string]bool
}

func (c *crashChain) Broadcast(ctx context.Context, raw []byte) error {
	c.mu.Lock()
	first := !c.sent[string(raw)]
	c.sent[string(raw)] = true
	c.mu.Unlock()
	if first && c.at.afterPersist != nil {
		c.at.afterPersist()
	}
	err := c.Chain.Broadcast(ctx, raw)
	if err == nil && c.at.afterBroadcast != nil {
		c.at.afterBroadcast()
	}
	return err
}

func openOrigin(ctx context.Context, dir, rpcURL, keyFile string, batchSize int, at crashPoints) (*origin, error) {
	st, err := store.Open(store.Config{Dir: filepath.Join(dir, "store")})
	if err != nil {
		return nil, err
	}
	cfg := ethchain.Config{DataDir: dir}
	if rpcURL != "" {
		cfg = ethchain.Config{RPCURL: rpcURL, KeyFile: keyFile, Network: ethchain.CustomNetwork, NetworkName: "geth-dev", ChainID: 1337, Confirmations: 1}
	}
	ch, err := ethchain.Open(ctx, cfg)
	if err != nil {
		st.Close()
		return nil, err
	}
	var chain anchor.Chain = ch
	if at.afterPersist != nil || at.afterBroadcast != nil {
		chain = &crashChain{Chain: ch, at: at, sent: map[string]bool{}}
	}
	b, err := anchor.New(anchor.Config{
		Store: st, Chain: chain, BatchSize: batchSize, BatchInterval: 200 * time.Millisecond,
		Confirmations: 1, PollInterval: 10 * time.Millisecond, BumpAfter: 30 * time.Second,
		MaxBackoff: 200 * time.Millisecond,
	})
	if err != nil {
		ch.Close()
		st.Close()
		return nil, err
	}
	return &origin{st: st, chain: ch, b: b}, nil
}

func (o *origin) close() {
	o.chain.Close()
	o.st.Close()
}

// enqueue adds records [0, n) in transactions of 100 (idempotent).
func (o *origin) enqueue(ctx context.Context, n int) error {
	for from := 0; from < n; from += 100 {
		err := o.st.Update(ctx, func(txn store.Txn) error {
			for i := from; i < min(from+100, n); i++ {
				if err := o.b.Enqueue(txn, anchor.Entry{RecordID: recordName(i), LeafHash: recordLeaf(i)}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// runUntilAnchored steps until every record is anchored or the deadline passes.
func (o *origin) runUntilAnchored(ctx context.Context, n int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if _, err := o.b.Flush(ctx); err != nil { // close the last partial batch without waiting
			return err
		}
		stepErr := o.b.Step(ctx)
		s, err := o.b.Stats(ctx)
		if err != nil {
			return err
		}
		if s.Anchored == uint64(n) && s.Pending == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not anchored after %v: %+v (last step error: %v)", timeout, s, stepErr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func runHelper(dir string) error {
	ctx := context.Background()
	n, _ := strconv.Atoi(os.Getenv(envRecords))
	batch, _ := strconv.Atoi(os.Getenv(envBatch))
	var killOn string
	var killAt int
	fmt.Sscanf(os.Getenv(envKillAt), "%9s %d", &killOn, &killAt)
	count := 0
	kill := func(on string) func() {
		return func() {
			if killOn != on {
				return
			}
			if count++; count == killAt {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {}
			}
		}
	}
	o, err := openOrigin(ctx, dir, os.Getenv(envRPC), os.Getenv(envKeyFile), batch,
		crashPoints{afterPersist: kill("persist"), afterBroadcast: kill("broadcast")})
	if err != nil {
		return err
	}
	defer o.close()
	if err := o.enqueue(ctx, n); err != nil {
		return err
	}
	return o.runUntilAnchored(ctx, n, time.Minute)
}

// crashAndRecover runs the helper until it SIGKILLs itself, then restarts
// the origin in-process on the same dir and checks that every record is
// anchored with a verifying proof and that each batch root is on chain
// exactly once.
func crashAndRecover(t *testing.T, dir, rpcURL, keyFile, killAt string, records, batch int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		envHelper+"="+dir, envRPC+"="+rpcURL, envKeyFile+"="+keyFile,
		envRecords+"="+strconv.Itoa(records), envBatch+"="+strconv.Itoa(batch), envKillAt+"="+killAt)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("helper did not die by SIGKILL: %v\n%s", err, out)
	}
	ctx := context.Background()
	o, err := openOrigin(ctx, dir, rpcURL, keyFile, batch, crashPoints{})
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	defer o.close()
	// Nothing lost: every record is known before any new work.
	for _, i := range []int{0, records / 2, records - 1} {
		if _, err := o.b.Proof(ctx, recordName(i)); err != nil {
			t.Fatalf("after SIGKILL: %v", err)
		}
	}
	// The kill hit the intended window: batch 3's tx is persisted, not anchored.
	b3, err := o.b.Batch(ctx, "3")
	if err != nil || b3.State != anchor.StateSubmitted || len(b3.TxHashes) != 1 {
		t.Fatalf("after SIGKILL batch 3 = %+v, %v; want submitted with one persisted tx", b3, err)
	}
	if err := o.runUntilAnchored(ctx, records, time.Minute); err != nil {
		t.Fatal(err)
	}
	checkAnchored(t, o, records, batch)
	// Recovered by rebroadcasting the persisted tx, not by signing another.
	after, err := o.b.Batch(ctx, "3")
	if err != nil || after.TxHash != b3.TxHashes[0] || len(after.TxHashes) != 1 {
		t.Fatalf("batch 3 after recovery = %+v, %v; want its persisted tx %s", after, err, b3.TxHashes[0])
	}
}

// checkAnchored verifies every record and that each batch root is in
// exactly one mined transaction, and no other anchor exists.
func checkAnchored(t *testing.T, o *origin, records, batch int) {
	t.Helper()
	ctx := context.Background()
	roots := map[anchor.Hash]anchor.Proof{}
	for i := range records {
		p, err := o.b.Proof(ctx, recordName(i))
		if err != nil {
			t.Fatal(err)
		}
		res, err := anchor.Verify(ctx, o.chain, recordLeaf(i), p, 1)
		if err != nil || !res.Passed() || p.Status != anchor.StatusAnchored {
			t.Fatalf("record %d: %s, %+v, %v", i, p.Status, res, err)
		}
		roots[p.MerkleRoot] = p
	}
	wantBatches := (records + batch - 1) / batch
	if len(roots) != wantBatches {
		t.Fatalf("%d distinct roots, want %d batches", len(roots), wantBatches)
	}
	head, err := o.chain.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	anchors, err := o.chain.Anchors(ctx, 1, head)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[anchor.Hash]int{}
	for _, a := range anchors {
		r, _ := anchor.RootFromCalldata(a.Data)
		seen[r]++
		if p, ok := roots[r]; !ok || p.TxHash != a.Hash || p.BlockNumber != a.BlockNumber {
			t.Fatalf("unexpected anchor tx %s (root %s) in block %d", a.Hash, r, a.BlockNumber)
		}
	}
	for r := range roots {
		if seen[r] != 1 {
			t.Fatalf("root %s mined %d times, want exactly 1", r, seen[r])
		}
	}
	if len(anchors) != wantBatches {
		t.Fatalf("%d anchor txs on chain, want %d", len(anchors), wantBatches)
	}
}

func TestEmbeddedEndToEndAndRestart(t *testing.T) {
	const records, batch = 2500, 500
	dir := t.TempDir()
	ctx := context.Background()
	o, err := openOrigin(ctx, dir, "", "", batch, crashPoints{})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.enqueue(ctx, records); err != nil {
		t.Fatal(err)
	}
	// Let Run close batches by size and time on its own.
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- o.b.Run(runCtx) }()
	deadline := time.Now().Add(time.Minute)
	for {
		s, err := o.b.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.Anchored == records {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not anchored: %+v", s)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	checkAnchored(t, o, records, batch)
	proofs := make([]anchor.Proof, records)
	for i := range proofs {
		proofs[i], _ = o.b.Proof(ctx, recordName(i))
	}
	o.close()

	// The restarted chain still proves every record, read from a fresh node.
	ch, err := ethchain.Open(ctx, ethchain.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	for i, p := range proofs {
		if res, err := anchor.Verify(ctx, ch, recordLeaf(i), p, 1); err != nil || !res.Passed() {
			t.Fatalf("after restart, record %d: %+v, %v", i, res, err)
		}
	}
}

func TestEmbeddedSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess crash test")
	}
	tests := []struct {
		name   string
		killAt string
	}{
		{"after tx persisted, before broadcast", "persist 3"},
		{"after broadcast, before receipt and sync", "broadcast 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			crashAndRecover(t, t.TempDir(), "", "", tc.killAt, 2500, 500)
		})
	}
}
