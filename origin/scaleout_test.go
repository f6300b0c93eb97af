package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/jackc/pgx/v5"
	"github.com/provenant/provenant/internal/formdata"
	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/anchor/ethchain"
	"github.com/provenant/provenant/origin/internal/anchor/ethchain/gethtest"
	"github.com/provenant/provenant/origin/internal/store/pgstore/pgtest"
	"github.com/provenant/provenant/origin/origintest/corpus"
	"github.com/provenant/provenant/shared/merkle"
)

// The scale-out deployment under test: three origin processes of the real
// binary on one PostgreSQL database, one geth --dev chain and one shared
// blobs directory, with a short anchoring lease so that a takeover fits
// in the test.
const (
	scaleOrigins   = 3
	scaleLeaseTTL  = 4 * time.Second
	scaleBatchSize = 8
	scaleWorkers   = 6
	// scaleHold is how long the webhook receiver holds each request
	// around the kill: deliveries back up until every origin has its
	// scalePerEndpoint attempts in flight, so the killed origin dies
	// holding claims.
	scaleHold        = 3 * time.Second
	scalePerEndpoint = 2
	scaleWebhookTTL  = 5 * time.Second // attempt timeout; a claim lasts it + 10 s
)

// originProc is one origin OS process and what its log said.
type originProc struct {
	t    *testing.T
	name string
	cmd  *exec.Cmd
	url  string

	mu     sync.Mutex
	lines  []string
	leases []leaseEvent // "anchoring lease acquired", in order
	txs    int          // "anchor tx persisted" lines
	exited chan struct{}
	killed atomic.Bool
}

type leaseEvent struct {
	epoch uint64
	at    time.Time
}

var (
	listeningRe = regexp.MustCompile(`msg="origin listening" addr=(\S+)`)
	leaseRe     = regexp.MustCompile(`msg="anchoring lease acquired" .*epoch=(\d+)`)
)

func (p *originProc) logTail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines[max(0, len(p.lines)-30):], "\n")
}

// startScaleOrigin starts the binary with args and env and waits until it
// listens.
func startScaleOrigin(t *testing.T, bin, name string, args, env []string) *originProc {
	t.Helper()
	p := &originProc{t: t, name: name, exited: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "PROVENANT_") && !strings.HasPrefix(e, "GOMEMLIMIT=") {
			p.cmd.Env = append(p.cmd.Env, e)
		}
	}
	p.cmd.Env = append(p.cmd.Env, env...)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !p.killed.Load() {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
		}
		select {
		case <-p.exited:
		case <-time.After(20 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			l := sc.Text()
			p.mu.Lock()
			p.lines = append(p.lines, l)
			if m := leaseRe.FindStringSubmatch(l); m != nil {
				e, _ := strconv.ParseUint(m[1], 10, 64)
				p.leases = append(p.leases, leaseEvent{epoch: e, at: time.Now()})
			}
			if strings.Contains(l, `msg="anchor tx persisted"`) {
				p.txs++
			}
			p.mu.Unlock()
			if m := listeningRe.FindStringSubmatch(l); m != nil {
				addr <- m[1]
			}
		}
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	select {
	case a := <-addr:
		p.url = "http://" + a
	case <-p.exited:
		t.Fatalf("origin %s exited at start:\n%s", name, p.logTail())
	case <-time.After(90 * time.Second):
		t.Fatalf("origin %s did not start listening:\n%s", name, p.logTail())
	}
	return p
}

// leader returns the epoch this origin leads at (0: not leading).
func (p *originProc) leaderEpoch() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.leases) == 0 {
		return 0
	}
	return p.leases[len(p.leases)-1].epoch
}

// scaleClient is a small JSON/multipart client for the origins' API.
type scaleClient struct {
	t *testing.T
	c *http.Client
}

type scaleResp struct {
	status int
	body   []byte
	err    error
}

func (c scaleClient) do(method, u, auth string, body any) scaleResp {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		return scaleResp{err: err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != "" {
		req.Header.Set("Authorization", "Bearer "+auth)
	}
	return c.send(req)
}

func (c scaleClient) send(req *http.Request) scaleResp {
	resp, err := c.c.Do(req)
	if err != nil {
		return scaleResp{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return scaleResp{status: resp.StatusCode, body: b, err: err}
}

func (c scaleClient) must(r scaleResp, status int, what string) map[string]any {
	c.t.Helper()
	if r.err != nil || r.status != status {
		c.t.Fatalf("%s: status %d, err %v: %s", what, r.status, r.err, r.body)
	}
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		c.t.Fatalf("%s: %v: %s", what, err, r.body)
	}
	return m
}

func (c scaleClient) sign(base, apiKey, keyID, name string, file []byte) scaleResp {
	body, ct := formdata.File("file", name, file, nil)
	req, err := http.NewRequest("POST", base+"/api/v1/sign?signing_key_id="+url.QueryEscape(keyID), bytes.NewReader(body))
	if err != nil {
		return scaleResp{err: err}
	}
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+apiKey)
	return c.send(req)
}

// scalePhoto is a 480×360 JPEG distinct for each seed, with enough
// texture for the watermark.
func scalePhoto(seed uint64) []byte { return corpus.Photo(seed, 480, 360) }

// hookReceiver is the webhook receiver: it checks each request's HMAC and
// records every delivery id with its body.
type hookReceiver struct {
	secret   string
	hold     atomic.Int64 // nanoseconds each request is held before answering
	inFlight atomic.Int32 // requests being held

	mu       sync.Mutex
	bodies   map[string][]byte // delivery id → body of its first request
	requests map[string]int    // delivery id → requests received
	events   map[string]string // delivery id → event type
	bad      []string          // protocol violations
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	id, ev := r.Header.Get("X-Service-Delivery"), r.Header.Get("X-Service-Event")
	h.mu.Lock()
	mac := hmac.New(sha256.New, []byte(h.secret))
	mac.Write(body)
	if h.secret != "" && !hmac.Equal([]byte(hex.EncodeToString(mac.Sum(nil))), []byte(r.Header.Get("X-Service-Signature"))) {
		h.bad = append(h.bad, "bad signature on delivery "+id)
	}
	if prev, ok := h.bodies[id]; ok && !bytes.Equal(prev, body) {
		h.bad = append(h.bad, "delivery "+id+" sent with two different bodies")
	}
	if _, ok := h.bodies[id]; !ok {
		h.bodies[id], h.events[id] = body, ev
	}
	h.requests[id]++
	h.mu.Unlock()
	h.inFlight.Add(1)
	time.Sleep(time.Duration(h.hold.Load()))
	h.inFlight.Add(-1)
	w.WriteHeader(http.StatusNoContent)
}

// TestScaleOutProcesses runs three origin processes (the real binary) on
// one PostgreSQL database, one geth --dev chain and one shared blobs
// directory, under a signing load spread over all three, and SIGKILLs the
// anchoring leader just after it persisted a batch's transaction, while
// webhook deliveries are in flight from every origin. Then: every
// acknowledged sign is stored once; the dashboard counters equal the
// records; every record is anchored, with a proof that verifies against
// the chain, in exactly one batch, each batch root mined once; another
// origin took the lease over within the lease time at a higher epoch;
// every content.signed and batch.anchored delivery arrived at least once
// under one delivery id with one body, none lost with the killed origin;
// and every kept file is served by a surviving origin.
func TestScaleOutProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("three origin processes, PostgreSQL and geth")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "origin")
	built := make(chan error, 1)
	go func() {
		out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
		if err != nil {
			err = fmt.Errorf("go build: %v\n%s", err, out)
		}
		built <- err
	}()
	pgURL := pgtest.Start(t).NewDatabase()
	ethURL, keyFile := gethtest.Start(t)
	if err := <-built; err != nil {
		t.Fatal(err)
	}

	recv := &hookReceiver{bodies: map[string][]byte{}, requests: map[string]int{}, events: map[string]string{}}
	hooks := httptest.NewServer(recv)
	t.Cleanup(hooks.Close)

	master := make([]byte, 32)
	if _, err := rand.Read(master); err != nil {
		t.Fatal(err)
	}
	blobsDir := filepath.Join(dir, "blobs")
	env := []string{
		"PROVENANT_MASTER_KEY=" + hex.EncodeToString(master),
		"PROVENANT_WEBHOOK_ALLOW_CIDRS=127.0.0.1/32",
		"PROVENANT_WEBHOOK_TIMEOUT=" + scaleWebhookTTL.String(),
		"PROVENANT_WEBHOOK_SCHEDULE=1s,2s,2s,2s",
		"PROVENANT_WEBHOOK_PER_ENDPOINT=" + strconv.Itoa(scalePerEndpoint),
	}
	procs := make([]*originProc, scaleOrigins)
	var wg sync.WaitGroup
	for i := range procs {
		wg.Go(func() {
			procs[i] = startScaleOrigin(t, bin, fmt.Sprintf("o%d", i), []string{
				"--listen", "127.0.0.1:0", "--admin-listen", "", "--chain-rpc-listen", "",
				"--data-dir", filepath.Join(dir, fmt.Sprintf("o%d", i)),
				"--store", "postgres", "--postgres-url", pgURL, "--blobs-dir", blobsDir,
				"--eth-rpc", ethURL, "--eth-key", keyFile, "--eth-network", "custom", "--eth-chain-id", "1337",
				"--eth-network-name", "geth-dev", "--eth-confirmations", "1",
				"--batch-size", strconv.Itoa(scaleBatchSize), "--batch-interval", "1s",
				"--anchor-lease-ttl", scaleLeaseTTL.String(), "--limit-sign", "100000",
			}, env)
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	c := scaleClient{t: t, c: &http.Client{Timeout: 60 * time.Second}}

	// An account made on o0, keys on o1, the webhook on o2: the shared
	// store and master key make each usable everywhere.
	m := c.must(c.do("POST", procs[0].url+"/api/v1/auth/register", "", map[string]string{
		"email": "scale@example.com", "password": "correct horse battery staple", "org_name": "Scale News", "org_type": "news_org"}),
		201, "register on o0")
	token, _ := m["access_token"].(string)
	m = c.must(c.do("POST", procs[1].url+"/api/v1/keys/signing-keys", token, map[string]string{"name": "desk", "origin_type": "camera_image"}),
		201, "signing key on o1")
	keyID, _ := m["id"].(string)
	m = c.must(c.do("POST", procs[1].url+"/api/v1/keys/api-keys", token, map[string]any{"name": "load"}), 201, "API key on o1")
	apiKey, _ := m["key"].(string)
	m = c.must(c.do("POST", procs[2].url+"/api/v1/webhooks", apiKey, map[string]any{
		"url": hooks.URL + "/hook", "events": []string{"content.signed", "batch.anchored"}}), 201, "webhook on o2")
	recv.mu.Lock()
	recv.secret, _ = m["secret"].(string)
	recv.mu.Unlock()
	hookID, _ := m["id"].(string)

	// The leader: the origin whose log says it acquired the lease.
	var leader *originProc
	deadline := time.Now().Add(30 * time.Second)
	for leader == nil {
		for _, p := range procs {
			if p.leaderEpoch() != 0 {
				leader = p
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no origin acquired the anchoring lease")
		}
		time.Sleep(50 * time.Millisecond)
	}
	oldEpoch := leader.leaderEpoch()

	// The signing load: workers sign distinct photos round-robin over the
	// origins still alive until stopped. A sign that gets no 201 (the
	// killed origin's, in flight) is not acknowledged.
	type acked struct{ id, sha, origin string }
	var (
		ackMu    sync.Mutex
		acks     []acked
		unacked  atomic.Int64
		seq      atomic.Uint64
		stopLoad = make(chan struct{})
		loadDone sync.WaitGroup
	)
	for w := range scaleWorkers {
		loadDone.Go(func() {
			for k := w; ; k++ {
				select {
				case <-stopLoad:
					return
				default:
				}
				p := procs[k%scaleOrigins]
				if p.killed.Load() {
					continue
				}
				n := seq.Add(1)
				r := c.sign(p.url, apiKey, keyID, fmt.Sprintf("p%d.jpg", n), scalePhoto(n))
				if r.err != nil || r.status != 201 {
					if !p.killed.Load() {
						t.Errorf("sign on %s: status %d, err %v: %s", p.name, r.status, r.err, r.body)
						return
					}
					unacked.Add(1)
					continue
				}
				var s struct {
					RecordID string `json:"record_id"`
					SHA256   string `json:"sha256"`
				}
				if err := json.Unmarshal(r.body, &s); err != nil || s.RecordID == "" {
					t.Errorf("sign answer %s: %v", r.body, err)
					return
				}
				ackMu.Lock()
				acks = append(acks, acked{s.RecordID, s.SHA256, p.name})
				ackMu.Unlock()
			}
		})
	}
	// Kill the leader right after it persisted a transaction, with at
	// least two batches' worth of records signed.
	deadline = time.Now().Add(60 * time.Second)
	for {
		ackMu.Lock()
		n := len(acks)
		ackMu.Unlock()
		leader.mu.Lock()
		txs := leader.txs
		leader.mu.Unlock()
		if n >= 2*scaleBatchSize && txs >= 1 {
			break
		}
		if time.Now().After(deadline) || t.Failed() {
			close(stopLoad)
			loadDone.Wait()
			t.Fatalf("no anchoring transaction by the leader %s after %d signs:\n%s", leader.name, n, leader.logTail())
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The receiver now holds every request, so deliveries back up. Kill
	// at the next persisted transaction (the batch is then between
	// persisting and anchoring) once more attempts are in flight than the
	// survivors can hold: the leader is then making at least one.
	recv.hold.Store(int64(scaleHold))
	leader.mu.Lock()
	want := leader.txs + 1
	leader.mu.Unlock()
	atKill := int32(0)
	for {
		leader.mu.Lock()
		txs := leader.txs
		leader.mu.Unlock()
		atKill = recv.inFlight.Load()
		if txs >= want && atKill > int32((scaleOrigins-1)*scalePerEndpoint) {
			break
		}
		if time.Now().After(deadline) {
			close(stopLoad)
			loadDone.Wait()
			t.Fatalf("no transaction persisted by %s with more than %d webhook attempts in flight (%d in flight, %d txs)",
				leader.name, (scaleOrigins-1)*scalePerEndpoint, atKill, txs)
		}
		time.Sleep(2 * time.Millisecond)
	}
	leader.killed.Store(true)
	killedAt := time.Now()
	if err := leader.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-leader.exited
	recv.hold.Store(0)
	var survivors []*originProc
	for _, p := range procs {
		if p != leader {
			survivors = append(survivors, p)
		}
	}
	// The load goes on on the survivors while one of them takes over.
	var newLeader *originProc
	var tookOver time.Duration
	deadline = time.Now().Add(3 * scaleLeaseTTL)
	for newLeader == nil {
		for _, p := range survivors {
			p.mu.Lock()
			for _, e := range p.leases {
				if e.epoch > oldEpoch && newLeader == nil {
					newLeader, tookOver = p, e.at.Sub(killedAt)
				}
			}
			p.mu.Unlock()
		}
		if time.Now().After(deadline) {
			close(stopLoad)
			loadDone.Wait()
			t.Fatalf("no survivor took the anchoring lease over within %v of the kill", 3*scaleLeaseTTL)
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(2 * time.Second)
	close(stopLoad)
	loadDone.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// The lease expires at most TTL after the last renewal, and survivors
	// try every TTL/3; the rest is slack for a loaded machine.
	if limit := scaleLeaseTTL + scaleLeaseTTL/3 + 3*time.Second; tookOver > limit {
		t.Errorf("%s took over %v after the kill, want within the lease time (%v + renewal period)", newLeader.name, tookOver, scaleLeaseTTL)
	}
	t.Logf("leader %s (epoch %d) killed after %d signs with %d webhook attempts in flight; %s took over at epoch %d after %v",
		leader.name, oldEpoch, len(acks), atKill, newLeader.name, newLeader.leaderEpoch(), tookOver.Round(time.Millisecond))

	// Everything signed gets anchored by the new leader.
	api := survivors[0]
	var stats map[string]any
	deadline = time.Now().Add(90 * time.Second)
	for {
		stats = c.must(c.do("GET", api.url+"/api/v1/dashboard/stats", token, nil), 200, "dashboard")
		if stats["pending_batch"] == float64(0) && stats["total_signed"] == stats["blockchain_anchored"] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("dashboard 90 s after the load: %v\nnew leader's log:\n%s", stats, newLeader.logTail())
		}
		time.Sleep(200 * time.Millisecond)
	}

	// Every acknowledged sign stored once; nothing else but the signs that
	// were in flight to the killed origin.
	var ids []string
	cursor := ""
	for {
		u := api.url + "/api/v1/content-records?limit=100"
		if cursor != "" {
			u += "&cursor=" + url.QueryEscape(cursor)
		}
		m := c.must(c.do("GET", u, apiKey, nil), 200, "records list")
		for _, it := range m["items"].([]any) {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		next, _ := m["next_cursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	stored := map[string]int{}
	for _, id := range ids {
		stored[id]++
	}
	for id, n := range stored {
		if n != 1 {
			t.Errorf("record %s listed %d times", id, n)
		}
	}
	for _, a := range acks {
		if stored[a.id] != 1 {
			t.Errorf("acknowledged sign %s (on %s) stored %d times", a.id, a.origin, stored[a.id])
		}
	}
	if extra := len(stored) - len(acks); extra < 0 || int64(extra) > unacked.Load() {
		t.Errorf("%d records for %d acknowledged signs and %d unacknowledged ones", len(stored), len(acks), unacked.Load())
	}
	for _, p := range survivors {
		s := c.must(c.do("GET", p.url+"/api/v1/dashboard/stats", token, nil), 200, "dashboard")
		if s["total_signed"] != float64(len(stored)) || s["blockchain_anchored"] != float64(len(stored)) {
			t.Errorf("dashboard on %s: total_signed %v, blockchain_anchored %v; want %d records, all anchored",
				p.name, s["total_signed"], s["blockchain_anchored"], len(stored))
		}
	}

	// Every record's proof verifies against the chain; each record is in
	// exactly one batch (the batches' sizes add up to the records) and
	// each batch root is mined exactly once.
	ctx := context.Background()
	reader, err := ethchain.Open(ctx, ethchain.Config{RPCURL: ethURL, KeyFile: keyFile, Network: ethchain.CustomNetwork,
		NetworkName: "geth-dev", ChainID: 1337, Confirmations: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	type batch struct {
		root    anchor.Hash
		size    uint64
		records int
	}
	batches := map[string]*batch{}
	for id := range stored {
		d := c.must(c.do("GET", api.url+"/api/v1/content-records/"+id, apiKey, nil), 200, "record "+id)
		canon, err := base64.StdEncoding.DecodeString(d["canonical_record"].(string))
		if err != nil {
			t.Fatalf("record %s canonical_record: %v", id, err)
		}
		sig, err := hex.DecodeString(d["signature_hex"].(string))
		if err != nil {
			t.Fatal(err)
		}
		leaf := anchor.Hash(merkle.LeafHash(append(canon, sig...)))
		raw, _ := json.Marshal(d["anchoring"].(map[string]any)["proof"])
		var p anchor.Proof
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatalf("record %s proof %s: %v", id, raw, err)
		}
		if p.Status != anchor.StatusAnchored || p.RecordID != id {
			t.Errorf("record %s: proof %s", id, raw)
			continue
		}
		if _, err := anchor.Verify(ctx, reader, leaf, p, 1); err != nil {
			t.Errorf("record %s: proof does not verify against the chain: %v", id, err)
		}
		b := batches[p.BatchID]
		if b == nil {
			b = &batch{root: p.MerkleRoot, size: p.TreeSize}
			batches[p.BatchID] = b
		}
		if b.root != p.MerkleRoot || b.size != p.TreeSize {
			t.Errorf("batch %s: proofs disagree on root or size", p.BatchID)
		}
		b.records++
	}
	var sum uint64
	roots := map[anchor.Hash]string{}
	for id, b := range batches {
		sum += b.size
		if uint64(b.records) != b.size {
			t.Errorf("batch %s has %d leaves and %d of the records", id, b.size, b.records)
		}
		roots[b.root] = id
	}
	if sum != uint64(len(stored)) {
		t.Errorf("batches hold %d leaves for %d records", sum, len(stored))
	}
	mined := minedRoots(t, ethURL, keyFile)
	for root, n := range mined {
		if n != 1 {
			t.Errorf("root %x mined %d times", root, n)
		}
		if _, ok := roots[root]; !ok {
			t.Errorf("root %x mined but no record's batch", root)
		}
	}
	if len(mined) != len(batches) {
		t.Errorf("%d roots mined for %d batches", len(mined), len(batches))
	}

	// Webhooks: content.signed for every record and batch.anchored for
	// every batch, each under one delivery id with one body; the records
	// of the batch.anchored events are the records, each once.
	deadline = time.Now().Add(90 * time.Second)
	for {
		signedFor, anchoredRecs, anchoredBatches, problems := recv.summary(t)
		complete := len(signedFor) == len(stored) && len(anchoredBatches) == len(batches) && len(anchoredRecs) == len(stored)
		if complete || time.Now().After(deadline) {
			for id := range stored {
				if signedFor[id] != 1 {
					t.Errorf("record %s: %d content.signed delivery ids, want 1", id, signedFor[id])
				}
				if anchoredRecs[id] != 1 {
					t.Errorf("record %s in %d batch.anchored deliveries, want 1", id, anchoredRecs[id])
				}
			}
			for id := range batches {
				if anchoredBatches[id] != 1 {
					t.Errorf("batch %s: %d batch.anchored delivery ids, want 1", id, anchoredBatches[id])
				}
			}
			for _, p := range problems {
				t.Error(p)
			}
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	// None lost: the origins' own delivery log ends with every delivery
	// succeeded, those the killed origin was making included (made again
	// by a survivor once their claims lapsed, so received twice).
	deadline = time.Now().Add(60 * time.Second)
	for {
		status := map[string]int{}
		ids := map[string]bool{}
		cursor := ""
		for {
			u := api.url + "/api/v1/webhooks/" + hookID + "/deliveries?limit=100"
			if cursor != "" {
				u += "&cursor=" + url.QueryEscape(cursor)
			}
			m := c.must(c.do("GET", u, apiKey, nil), 200, "deliveries")
			for _, it := range m["items"].([]any) {
				d := it.(map[string]any)
				status[d["status"].(string)]++
				ids[d["id"].(string)] = true
			}
			next, _ := m["next_cursor"].(string)
			if next == "" {
				break
			}
			cursor = next
		}
		recv.mu.Lock()
		received := len(recv.bodies)
		unknown := 0
		for id := range ids {
			if _, ok := recv.bodies[id]; !ok {
				unknown++
			}
		}
		recv.mu.Unlock()
		if status["succeeded"] == len(ids) && len(ids) == received && unknown == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery log after 60 s: %v for %d deliveries (%d received, %d never received)", status, len(ids), received, unknown)
		}
		time.Sleep(500 * time.Millisecond)
	}
	recv.mu.Lock()
	resent := 0
	for _, n := range recv.requests {
		if n > 1 {
			resent++
		}
	}
	deliveries := len(recv.requests)
	recv.mu.Unlock()
	if resent == 0 {
		t.Error("no delivery was received twice: the attempts the killed origin had in flight were not made again")
	}

	// Kept files: the blobs directory is shared, so a survivor serves the
	// file of every record, those signed on the killed origin included.
	for _, a := range acks {
		r := c.do("GET", api.url+"/api/v1/content-records/"+a.id+"/file", apiKey, nil)
		if r.err != nil || r.status != 200 {
			t.Errorf("file of %s (signed on %s) from %s: status %d, err %v", a.id, a.origin, api.name, r.status, r.err)
			continue
		}
		if s := sha256.Sum256(r.body); hex.EncodeToString(s[:]) != a.sha {
			t.Errorf("file of %s: SHA-256 differs from the record's", a.id)
		}
	}
	t.Logf("%d records (%d acknowledged, %d unacknowledged signs) in %d batches, %d roots mined once each; %d webhook deliveries, %d received more than once",
		len(stored), len(acks), unacked.Load(), len(batches), len(mined), deliveries, resent)

	// What the database holds per record, for the capacity arithmetic of
	// docs/operations.md (the account, keys and webhook are included).
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var size, rows int64
	if err := conn.QueryRow(ctx, `SELECT pg_total_relation_size('provenant_kv'), count(*) FROM provenant_kv`).Scan(&size, &rows); err != nil {
		t.Fatal(err)
	}
	t.Logf("provenant_kv: %d rows, %d KiB with its index (%.1f KiB and %.1f rows per record)",
		rows, size>>10, float64(size)/1024/float64(len(stored)), float64(rows)/float64(len(stored)))
}

// summary counts, per record, the content.signed delivery ids naming it,
// per record the batch.anchored deliveries listing it, and per batch its
// batch.anchored delivery ids.
func (h *hookReceiver) summary(t *testing.T) (signed, anchoredRecs, anchoredBatches map[string]int, problems []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	signed, anchoredRecs, anchoredBatches = map[string]int{}, map[string]int{}, map[string]int{}
	for id, body := range h.bodies {
		var ev struct {
			Event string `json:"event"`
			Data  struct {
				RecordID  string   `json:"record_id"`
				BatchID   string   `json:"batch_id"`
				RecordIDs []string `json:"record_ids"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Errorf("delivery %s: %v", id, err)
			continue
		}
		switch ev.Event {
		case "content.signed":
			signed[ev.Data.RecordID]++
		case "batch.anchored":
			anchoredBatches[ev.Data.BatchID]++
			for _, r := range ev.Data.RecordIDs {
				anchoredRecs[r]++
			}
		}
	}
	return signed, anchoredRecs, anchoredBatches, append([]string(nil), h.bad...)
}

// minedRoots reads every block of the chain and counts the anchoring
// transactions (PVN1 calldata) sent by the anchoring key, by root.
func minedRoots(t *testing.T, ethURL, keyFile string) map[anchor.Hash]int {
	t.Helper()
	ctx := context.Background()
	key, err := crypto.LoadECDSA(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	sender := crypto.PubkeyToAddress(key.PublicKey)
	ec, err := ethclient.DialContext(ctx, ethURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	head, err := ec.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	chainID, err := ec.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[anchor.Hash]int{}
	for n := uint64(0); n <= head; n++ {
		blk, err := ec.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range blk.Transactions() {
			root, err := anchor.RootFromCalldata(tx.Data())
			if err != nil {
				continue
			}
			from, err := types.Sender(types.LatestSignerForChainID(chainID), tx)
			if err != nil || from != sender {
				continue
			}
			out[root]++
		}
	}
	return out
}
