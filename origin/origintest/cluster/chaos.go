package cluster

import (
	"bytes"
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/provenant/provenant/internal/formdata"
	"github.com/provenant/provenant/origin/origintest/corpus"
	"github.com/provenant/provenant/origin/origintest/originproc"
)

// Installation is a whole deployment on separate hosts: the chain, the
// database formation, the object store (one bucket for every origin's
// signed files), Redis (one set of rate limits), N origins behind
// HAProxy, an edge pointed at it, and a webhook receiver in the
// caller's namespace.
type Installation struct {
	// Net is the network all hosts are on.
	Net *Net
	// Chain is the geth node the origins anchor on.
	Chain *Chain
	// PG is the database formation.
	PG *PG
	// Origins are the origins, in host order.
	Origins []*Origin
	// LB is HAProxy in front of the origins.
	LB *LB
	// Edge verifies through LB.
	Edge *Edge
	// Hooks receives the webhooks.
	Hooks *HookReceiver
	// S3 is the object store holding every origin's signed files.
	S3 *ObjectStore
	// Redis holds every origin's rate limits.
	Redis *Redis

	hookSrv *http.Server
}

// InstallConfig sizes an Installation.
type InstallConfig struct {
	// Dir holds binaries, hosts' directories and logs.
	Dir string
	// Root is the module root the origin and edge are built from.
	Root string
	// Origins is the number of origins; 0 means 3.
	Origins int
	// LeaseTTL is the anchoring lease; 0 means 4 s.
	LeaseTTL time.Duration
	// Log receives progress.
	Log *slog.Logger
}

// Requirements reports why an installation cannot run here, or nil.
func Requirements() error {
	return errors.Join(Available(), PGAvailable(), LBAvailable(), ChainAvailable(), ObjectStoreAvailable(), RedisAvailable())
}

// ModuleRoot finds the module root above the working directory.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("cluster: not inside the module")
	}
	return filepath.Dir(mod), nil
}

// Install builds the binaries and starts every component; Close stops
// them and removes the network.
func Install(ctx context.Context, cfg InstallConfig) (inst *Installation, err error) {
	cfg.Origins = cmp.Or(cfg.Origins, 3)
	cfg.LeaseTTL = cmp.Or(cfg.LeaseTTL, 4*time.Second)
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	bins := filepath.Join(cfg.Dir, "bin")
	if err := os.MkdirAll(bins, 0o755); err != nil {
		return nil, err
	}
	type built struct {
		path string
		err  error
	}
	originBin, edgeBin := make(chan built, 1), make(chan built, 1)
	go func() {
		p, err := originproc.Build(cfg.Root, bins)
		originBin <- built{p, err}
	}()
	go func() {
		p := filepath.Join(bins, "edge")
		cmd := exec.Command("go", "build", "-o", p, "./edge")
		cmd.Dir = cfg.Root
		if out, err := cmd.CombinedOutput(); err != nil {
			edgeBin <- built{"", fmt.Errorf("go build ./edge: %w\n%s", err, out)}
			return
		}
		edgeBin <- built{p, nil}
	}()
	n, err := NewNet(filepath.Join(cfg.Dir, "hosts"), cfg.Log)
	if err != nil {
		return nil, err
	}
	inst = &Installation{Net: n}
	defer func() {
		if err != nil {
			inst.Close()
		}
	}()
	log := cfg.Log
	log.Info("starting the chain and the database formation")
	if inst.Chain, err = StartChain(ctx, n); err != nil {
		return inst, err
	}
	if inst.PG, err = StartPostgres(ctx, n, PGConfig{}); err != nil {
		return inst, err
	}
	log.Info("starting the object store and Redis")
	if inst.S3, err = StartObjectStore(ctx, n); err != nil {
		return inst, err
	}
	if inst.Redis, err = StartRedis(ctx, n); err != nil {
		return inst, err
	}
	inst.Hooks = &HookReceiver{signed: map[string]int{}, requests: map[string]int{}}
	l, err := net.Listen("tcp", net.JoinHostPort(n.GatewayIP(), "0"))
	if err != nil {
		return inst, err
	}
	inst.hookSrv = &http.Server{Handler: inst.Hooks, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = inst.hookSrv.Serve(l) }()
	inst.Hooks.URL = "http://" + l.Addr().String() + "/hook"

	ob := <-originBin
	if ob.err != nil {
		return inst, ob.err
	}
	master := make([]byte, 32)
	if _, err := rand.Read(master); err != nil {
		return inst, err
	}
	// The load balancer and the edge come after the origins but their
	// addresses are known now: hosts are numbered in order.
	ocfg := OriginConfig{
		Binary: ob.path, PostgresURL: inst.PG.URL(), Chain: inst.Chain, MasterKey: hex.EncodeToString(master),
		TrustedProxies: []string{n.CIDR()},
		Args: []string{"--batch-size", "16", "--batch-interval", "1s", "--anchor-lease-ttl", cfg.LeaseTTL.String(),
			"--limit-sign", "100000", "--limit-verify", "100000",
			"--s3-endpoint", inst.S3.Endpoint, "--s3-bucket", S3Bucket, "--ratelimit-redis", inst.Redis.URL},
		Env: []string{"PROVENANT_WEBHOOK_ALLOW_CIDRS=" + n.CIDR(), "PROVENANT_WEBHOOK_SCHEDULE=1s,2s,4s,8s,16s,30s",
			"PROVENANT_S3_ACCESS_KEY=" + S3AccessKey, "PROVENANT_S3_SECRET_KEY=" + S3SecretKey},
	}
	log.Info("starting the origins", "n", cfg.Origins)
	for i := range cfg.Origins {
		o, err := StartOrigin(ctx, n, fmt.Sprintf("origin%d", i+1), ocfg)
		if err != nil {
			return inst, err
		}
		inst.Origins = append(inst.Origins, o)
	}
	if inst.LB, err = StartLB(ctx, n, inst.Origins); err != nil {
		return inst, err
	}
	eb := <-edgeBin
	if eb.err != nil {
		return inst, eb.err
	}
	if inst.Edge, err = StartEdge(ctx, n, "edge1", eb.path, inst.LB.URL); err != nil {
		return inst, err
	}
	return inst, nil
}

// Close stops everything.
func (inst *Installation) Close() {
	if inst.hookSrv != nil {
		_ = inst.hookSrv.Close()
	}
	inst.Net.Close()
}

// HookReceiver receives the installation's webhooks, checks their
// signatures and counts content.signed deliveries per record.
type HookReceiver struct {
	// URL is the receiver's endpoint.
	URL string

	mu       sync.Mutex
	secret   string
	signed   map[string]int // record id → content.signed delivery ids
	requests map[string]int // delivery id → requests
	bad      []string
}

// ServeHTTP records one delivery and answers 204.
func (h *HookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	id := r.Header.Get("X-Service-Delivery")
	h.mu.Lock()
	defer h.mu.Unlock()
	mac := hmac.New(sha256.New, []byte(h.secret))
	mac.Write(body)
	if !hmac.Equal([]byte(hex.EncodeToString(mac.Sum(nil))), []byte(r.Header.Get("X-Service-Signature"))) {
		h.bad = append(h.bad, "bad signature on delivery "+id)
	}
	h.requests[id]++
	if h.requests[id] == 1 {
		var ev struct {
			Event string `json:"event"`
			Data  struct {
				RecordID string `json:"record_id"`
			} `json:"data"`
		}
		if json.Unmarshal(body, &ev) == nil && ev.Event == "content.signed" {
			h.signed[ev.Data.RecordID]++
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// Fault is one failure the chaos run injects under load. Inject makes
// it and returns the repair, which Run calls after Hold; the repair
// returns once the installation is whole again (every origin ready, the
// database synchronous). A new kind of component brings its own fault
// (an object store's outage: stop its host, restart it) as one more
// Fault in ChaosConfig.Faults.
type Fault struct {
	// Name is the fault's line in the report.
	Name string
	// Hold is how long the fault lasts before its repair.
	Hold time.Duration
	// Inject makes the fault.
	Inject func(ctx context.Context, inst *Installation) (repair func(ctx context.Context) error, err error)
}

// KillDBPrimary crashes the database primary's host; the repair restarts
// it (it rejoins as a standby) and waits for synchronous replication.
func KillDBPrimary() Fault {
	return Fault{Name: "kill the database primary", Inject: func(ctx context.Context, inst *Installation) (func(context.Context) error, error) {
		p, err := inst.PG.Primary(ctx)
		if err != nil {
			return nil, err
		}
		inst.PG.Crash(p)
		return func(ctx context.Context) error {
			if err := waitFor(ctx, 2*time.Minute, func() error {
				q, err := inst.PG.Primary(ctx)
				if err == nil && q == p {
					err = errors.New("no promotion yet")
				}
				return err
			}); err != nil {
				return err
			}
			if err := inst.PG.Restart(p); err != nil {
				return err
			}
			return inst.PG.WaitSynchronous(ctx, 3*time.Minute)
		}, nil
	}}
}

// KillLeader SIGKILLs the origin holding the anchoring lease; the repair
// starts it again on its data directory.
func KillLeader() Fault {
	return Fault{Name: "kill the origin holding the anchoring lease", Inject: func(ctx context.Context, inst *Installation) (func(context.Context) error, error) {
		o := Leader(inst.Origins)
		if o == nil {
			return nil, errors.New("no origin holds the lease")
		}
		o.Crash()
		return func(ctx context.Context) error { return o.Start(ctx) }, nil
	}}
}

// PartitionOrigin cuts one origin (the lease holder, so that the
// fencing is exercised too) from every database host for hold; the
// load balancer still reaches it.
func PartitionOrigin(hold time.Duration) Fault {
	return Fault{Name: fmt.Sprintf("partition an origin from the database for %v", hold), Hold: hold,
		Inject: func(ctx context.Context, inst *Installation) (func(context.Context) error, error) {
			o := Leader(inst.Origins)
			if o == nil {
				o = inst.Origins[0]
			}
			var heals []func() error
			for _, h := range append([]*Host{inst.PG.Monitor()}, inst.PG.Nodes()...) {
				heal, err := inst.Net.Partition(o.Host, h)
				if err != nil {
					return nil, err
				}
				heals = append(heals, heal)
			}
			return func(context.Context) error {
				var errs []error
				for _, h := range heals {
					errs = append(errs, h())
				}
				return errors.Join(errs...)
			}, nil
		}}
}

// CrashEverything SIGKILLs every origin, every database host, the
// object store, Redis and the load balancer at once, and the repair
// starts them all again (the chain stands for an external provider and
// the edge is stateless; both stay up).
func CrashEverything() Fault {
	return Fault{Name: "SIGKILL every origin, database host, the object store, Redis and the load balancer", Inject: func(ctx context.Context, inst *Installation) (func(context.Context) error, error) {
		var wg sync.WaitGroup
		for _, o := range inst.Origins {
			wg.Go(o.Crash)
		}
		wg.Go(inst.PG.CrashAll)
		wg.Go(inst.S3.Crash)
		wg.Go(inst.Redis.Host.Crash)
		wg.Go(inst.LB.Host.Crash)
		wg.Wait()
		return func(ctx context.Context) error {
			// The database, the object store and Redis first: an origin
			// does not start without the database.
			var wg sync.WaitGroup
			var s3Err, redisErr error
			wg.Go(func() { s3Err = inst.S3.Start(ctx) })
			wg.Go(func() { redisErr = inst.Redis.Start(ctx) })
			err := inst.PG.RestartAll(ctx)
			if err == nil {
				err = inst.PG.WaitSynchronous(ctx, 3*time.Minute)
			}
			wg.Wait()
			if err := errors.Join(err, s3Err, redisErr); err != nil {
				return err
			}
			errs := make([]error, len(inst.Origins))
			for i, o := range inst.Origins {
				wg.Go(func() { errs[i] = o.Start(ctx) })
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				return err
			}
			return inst.LB.Restart(ctx, inst.Origins)
		}, nil
	}}
}

// ChaosConfig configures Run.
type ChaosConfig struct {
	// Faults are injected in order; nil means DefaultFaults(30 s).
	Faults []Fault
	// Signers and Verifiers are the load's concurrent clients; 0 means 3
	// and 1.
	Signers, Verifiers int
	// Pause is each client's wait between requests; 0 means 100 ms.
	Pause time.Duration
	// Settle is the steady load before the first fault and after each
	// repair; 0 means 5 s.
	Settle time.Duration
	// Log receives progress.
	Log *slog.Logger
}

// DefaultFaults are the faults of docs/operations.md's chaos table, the
// object store's outage and the partition each lasting hold.
func DefaultFaults(hold time.Duration) []Fault {
	return []Fault{KillDBPrimary(), KillLeader(), StopObjectStore(hold), PartitionOrigin(hold), CrashEverything()}
}

// FaultResult is what clients saw around one fault.
type FaultResult struct {
	Name string
	// Signs and Verifies are the requests started from the injection to
	// the end of the settle period after the repair; SignErrors and
	// VerifyErrors those that got no success (no answer, or a status
	// other than 201 / 200).
	Signs, SignErrors, Verifies, VerifyErrors int
	// Recovery is the time from the injection until the last request
	// that failed or took over 2 s had finished (0: no request did).
	Recovery time.Duration
	// MaxLatency is the slowest successful sign in the window.
	MaxLatency time.Duration
	// Repair is how long the repair took (restarts, rejoin).
	Repair time.Duration
	// Errors are the distinct errors clients saw (at most 5).
	Errors []string
}

// Report is the outcome of a chaos run.
type Report struct {
	Faults []FaultResult
	// Acked is the number of signs answered 201; Unacked those that got
	// no 201 (each may or may not have been stored).
	Acked, Unacked int
	// Records is the number of records the installation holds.
	Records int
	// Lost: acknowledged signs whose record is missing. Duplicated:
	// records beyond the first for one sign request. NotAnchored:
	// records not anchored when the run ended. WebhooksMissing: records
	// without a content.signed delivery. Unexplained: records that match
	// no sign request at all. All must be 0.
	Lost, Duplicated, NotAnchored, WebhooksMissing, Unexplained int
	// SyncStandbys is the least number of synchronous standbys seen
	// before a fault (1: every acknowledged sign was on two nodes).
	SyncStandbys int
	// FilesChecked is the number of acknowledged records whose signed
	// file was read back through the load balancer and from every
	// origin; FilesUnreadable those of them not answered 200 with the
	// same bytes everywhere (0: a file signed on one origin is served by
	// all of them, from the one bucket).
	FilesChecked, FilesUnreadable int
	// Problems lists what went wrong, for the log.
	Problems []string
}

// OK reports whether nothing was lost, duplicated, left unanchored or
// undelivered.
func (r *Report) OK() bool {
	return r.Lost == 0 && r.Duplicated == 0 && r.NotAnchored == 0 && r.WebhooksMissing == 0 && r.Unexplained == 0 &&
		r.SyncStandbys >= 1 && r.FilesUnreadable == 0 && (r.FilesChecked > 0 || r.Acked == 0) && len(r.Problems) == 0
}

// Table renders the report as the Markdown table of docs/operations.md.
func (r *Report) Table() string {
	var b strings.Builder
	b.WriteString("| fault | signs (failed) | verifies (failed) | time to recover | slowest sign | repair |\n|---|---|---|---|---|---|\n")
	for _, f := range r.Faults {
		fmt.Fprintf(&b, "| %s | %d (%d) | %d (%d) | %.1f s | %.1f s | %.1f s |\n", f.Name, f.Signs, f.SignErrors,
			f.Verifies, f.VerifyErrors, f.Recovery.Seconds(), f.MaxLatency.Seconds(), f.Repair.Seconds())
	}
	fmt.Fprintf(&b, "\n%d signs acknowledged, %d not; %d records: lost %d, duplicated %d, never anchored %d, webhooks missing %d, unexplained %d; synchronous standbys before each fault ≥ %d\n",
		r.Acked, r.Unacked, r.Records, r.Lost, r.Duplicated, r.NotAnchored, r.WebhooksMissing, r.Unexplained, r.SyncStandbys)
	fmt.Fprintf(&b, "signed files read back through the load balancer and from every origin: %d, unreadable or different %d\n",
		r.FilesChecked, r.FilesUnreadable)
	return b.String()
}

// errText is an error as a short line; request ids vary, so the
// distinct errors of a fault stay few.
func errText(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	if i := strings.Index(s, `"request_id"`); i >= 0 {
		s = s[:i]
	}
	return s
}

// backoff is a client's pause after a failed request, as a well-behaved
// client retries: it keeps the error counts to what a client sees, not
// how fast a refused connection comes back.
func backoff(stop <-chan struct{}) {
	select {
	case <-stop:
	case <-time.After(time.Second):
	}
}

type call struct {
	sign       bool
	start, end time.Time
	ok         bool
	err        string
}

// Run drives a steady sign and verify load through the load balancer,
// injects the faults one after another, and then checks every record.
func Run(ctx context.Context, inst *Installation, cfg ChaosConfig) (*Report, error) {
	if cfg.Faults == nil {
		cfg.Faults = DefaultFaults(30 * time.Second)
	}
	cfg.Signers = cmp.Or(cfg.Signers, 3)
	cfg.Verifiers = cmp.Or(cfg.Verifiers, 1)
	cfg.Pause = cmp.Or(cfg.Pause, 100*time.Millisecond)
	cfg.Settle = cmp.Or(cfg.Settle, 5*time.Second)
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &apiClient{http: &http.Client{Timeout: 150 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}, base: inst.LB.URL}
	if err := c.setup(ctx, inst.Hooks); err != nil {
		return nil, err
	}
	rep := &Report{SyncStandbys: 1 << 30}

	var (
		mu        sync.Mutex
		calls     []call
		acked     = map[string]string{} // record id → file name
		names     []string              // every sign request's file name
		originals [][]byte              // acked uploads, for verifies
		seq       atomic.Uint64
		stop      = make(chan struct{})
		wg        sync.WaitGroup
	)
	for w := range cfg.Signers {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(cfg.Pause):
				}
				n := seq.Add(1)
				name := fmt.Sprintf("chaos-%d-%d.jpg", w, n)
				img := corpus.Photo(n, 320, 240)
				mu.Lock()
				names = append(names, name)
				mu.Unlock()
				start := time.Now()
				id, err := c.sign(ctx, name, img)
				mu.Lock()
				calls = append(calls, call{sign: true, start: start, end: time.Now(), ok: err == nil, err: errText(err)})
				if err == nil {
					acked[id] = name
					if len(originals) < 64 {
						originals = append(originals, img)
					}
				}
				mu.Unlock()
				if err != nil {
					backoff(stop)
				}
			}
		})
	}
	for range cfg.Verifiers {
		wg.Go(func() {
			r := mrand.New(mrand.NewPCG(1, 2))
			for {
				select {
				case <-stop:
					return
				case <-time.After(cfg.Pause):
				}
				mu.Lock()
				var img []byte
				if len(originals) > 0 {
					img = originals[r.IntN(len(originals))]
				}
				mu.Unlock()
				if img == nil {
					continue
				}
				start := time.Now()
				err := c.verify(ctx, img)
				mu.Lock()
				calls = append(calls, call{start: start, end: time.Now(), ok: err == nil, err: errText(err)})
				mu.Unlock()
				if err != nil {
					backoff(stop)
				}
			}
		})
	}
	stopLoad := func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
	}
	defer stopLoad()

	sleep := func(d time.Duration) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
			return nil
		}
	}
	if err := sleep(cfg.Settle); err != nil {
		return nil, err
	}
	for _, f := range cfg.Faults {
		if s, err := inst.PG.SyncStandbys(ctx); err != nil || s < rep.SyncStandbys {
			rep.SyncStandbys = s
		}
		log.Info("fault", "name", f.Name)
		t0 := time.Now()
		repair, err := f.Inject(ctx, inst)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		if err := sleep(f.Hold); err != nil {
			return nil, err
		}
		r0 := time.Now()
		if err := repair(ctx); err != nil {
			return nil, fmt.Errorf("%s: repair: %w", f.Name, err)
		}
		res := FaultResult{Name: f.Name, Repair: time.Since(r0)}
		// Every origin ready again through its own address.
		for _, o := range inst.Origins {
			if err := waitFor(ctx, 2*time.Minute, func() error { return httpGet(ctx, o.URL+"/ready") }); err != nil {
				return nil, fmt.Errorf("%s: %s not ready after the repair: %w", f.Name, o.Host.Name, err)
			}
		}
		if err := sleep(cfg.Settle); err != nil {
			return nil, err
		}
		t1 := time.Now()
		mu.Lock()
		for _, cl := range calls {
			if cl.start.Before(t0) && cl.end.Before(t0) || cl.start.After(t1) {
				continue
			}
			if cl.sign {
				res.Signs++
			} else {
				res.Verifies++
			}
			if !cl.ok {
				if len(res.Errors) < 5 && !slices.Contains(res.Errors, cl.err) {
					res.Errors = append(res.Errors, cl.err)
				}
				if cl.sign {
					res.SignErrors++
				} else {
					res.VerifyErrors++
				}
			} else if cl.sign {
				res.MaxLatency = max(res.MaxLatency, cl.end.Sub(cl.start))
			}
			if !cl.ok || cl.end.Sub(cl.start) > 2*time.Second {
				res.Recovery = max(res.Recovery, cl.end.Sub(t0))
			}
		}
		mu.Unlock()
		log.Info("fault done", "name", f.Name, "signs", res.Signs, "sign_errors", res.SignErrors, "verifies", res.Verifies,
			"verify_errors", res.VerifyErrors, "recovery", res.Recovery.Round(100*time.Millisecond), "repair", res.Repair.Round(100*time.Millisecond),
			"errors", strings.Join(res.Errors, " | "))
		rep.Faults = append(rep.Faults, res)
	}
	stopLoad()
	if rep.SyncStandbys == 1<<30 {
		rep.SyncStandbys = 0
	}
	for _, cl := range calls {
		if cl.sign {
			if cl.ok {
				rep.Acked++
			} else {
				rep.Unacked++
			}
		}
	}
	log.Info("load stopped; checking every record", "acked", rep.Acked, "unacked", rep.Unacked)
	return rep, check(ctx, c, inst, rep, acked, names)
}

// check waits for anchoring and webhooks to finish, then counts.
func check(ctx context.Context, c *apiClient, inst *Installation, rep *Report, acked map[string]string, names []string) error {
	var recs []record
	err := waitFor(ctx, 3*time.Minute, func() error {
		var err error
		if recs, err = c.records(ctx); err != nil {
			return err
		}
		pending := 0
		for _, r := range recs {
			if r.anchored != "anchored" {
				pending++
			}
		}
		inst.Hooks.mu.Lock()
		missing := 0
		for _, r := range recs {
			if inst.Hooks.signed[r.id] == 0 {
				missing++
			}
		}
		inst.Hooks.mu.Unlock()
		if pending > 0 || missing > 0 {
			return fmt.Errorf("%d of %d records not anchored, %d without a webhook", pending, len(recs), missing)
		}
		return nil
	})
	if err != nil && ctx.Err() != nil {
		return err
	}
	rep.Records = len(recs)
	byID := map[string]int{}
	byName := map[string]int{}
	for _, r := range recs {
		byID[r.id]++
		byName[r.name]++
		if r.anchored != "anchored" {
			rep.NotAnchored++
		}
	}
	inst.Hooks.mu.Lock()
	for _, r := range recs {
		if inst.Hooks.signed[r.id] == 0 {
			rep.WebhooksMissing++
		}
	}
	rep.Problems = append(rep.Problems, inst.Hooks.bad...)
	inst.Hooks.mu.Unlock()
	for id := range acked {
		if byID[id] == 0 {
			rep.Lost++
			rep.Problems = append(rep.Problems, "acknowledged record "+id+" missing")
		}
	}
	for id, k := range byID {
		if k > 1 {
			rep.Duplicated += k - 1
			rep.Problems = append(rep.Problems, fmt.Sprintf("record %s listed %d times", id, k))
		}
	}
	sent := map[string]bool{}
	for _, n := range names {
		sent[n] = true
	}
	for n, k := range byName {
		if k > 1 {
			rep.Duplicated += k - 1
			rep.Problems = append(rep.Problems, fmt.Sprintf("sign %s stored %d times", n, k))
		}
		if !sent[n] {
			rep.Unexplained += k
		}
	}
	checkFiles(ctx, c, inst, rep, acked)
	sort.Strings(rep.Problems)
	rep.Problems = slices.Compact(rep.Problems)
	return nil
}

// filesToCheck is how many acknowledged records' files checkFiles reads.
const filesToCheck = 24

// checkFiles reads the signed files of acknowledged records, spread over
// the whole run, through the load balancer and then from each origin
// directly: every one must answer 200 with the same bytes, whichever
// origin signed it.
func checkFiles(ctx context.Context, c *apiClient, inst *Installation, rep *Report, acked map[string]string) {
	ids := make([]string, 0, len(acked))
	for id := range acked {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	step := max(1, len(ids)/filesToCheck)
	for i := 0; i < len(ids); i += step {
		id := ids[i]
		path := "/api/v1/content-records/" + url.PathEscape(id) + "/file"
		rep.FilesChecked++
		st, want, err := c.do(ctx, "GET", path, c.apiKey, "", nil)
		if err != nil || st != http.StatusOK || len(want) == 0 {
			rep.FilesUnreadable++
			rep.Problems = append(rep.Problems, fmt.Sprintf("file of %s through the load balancer: status %d, %d bytes, %v", id, st, len(want), err))
			continue
		}
		for _, o := range inst.Origins {
			direct := *c
			direct.base = o.URL
			st, got, err := direct.do(ctx, "GET", path, c.apiKey, "", nil)
			if err != nil || st != http.StatusOK || !bytes.Equal(got, want) {
				rep.FilesUnreadable++
				rep.Problems = append(rep.Problems, fmt.Sprintf("file of %s from %s: status %d, %d bytes (want %d), %v", id, o.Host.Name, st, len(got), len(want), err))
				break
			}
		}
	}
}

// apiClient is the load's client: one account, one signing key, one API
// key, one webhook, all made through the load balancer.
type apiClient struct {
	http               *http.Client
	base               string
	token, apiKey, key string
}

func (c *apiClient) do(ctx context.Context, method, path, auth, ctype string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if auth != "" {
		req.Header.Set("Authorization", "Bearer "+auth)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func (c *apiClient) json(ctx context.Context, method, path, auth string, in any, want int, out any) error {
	var body []byte
	if in != nil {
		body, _ = json.Marshal(in)
	}
	st, b, err := c.do(ctx, method, path, auth, "application/json", body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if st != want {
		return fmt.Errorf("%s %s: status %d: %s", method, path, st, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

func (c *apiClient) setup(ctx context.Context, hooks *HookReceiver) error {
	var reg struct {
		Token string `json:"access_token"`
	}
	if err := c.json(ctx, "POST", "/api/v1/auth/register", "", map[string]string{"email": "chaos@example.com",
		"password": "correct horse battery staple", "org_name": "Chaos News", "org_type": "news_org"}, 201, &reg); err != nil {
		return err
	}
	c.token = reg.Token
	var key struct {
		ID string `json:"id"`
	}
	if err := c.json(ctx, "POST", "/api/v1/keys/signing-keys", c.token, map[string]string{"name": "desk", "origin_type": "camera_image"}, 201, &key); err != nil {
		return err
	}
	c.key = key.ID
	var ak struct {
		Key string `json:"key"`
	}
	if err := c.json(ctx, "POST", "/api/v1/keys/api-keys", c.token, map[string]any{"name": "load"}, 201, &ak); err != nil {
		return err
	}
	c.apiKey = ak.Key
	var wh struct {
		Secret string `json:"secret"`
	}
	if err := c.json(ctx, "POST", "/api/v1/webhooks", c.apiKey, map[string]any{"url": hooks.URL, "events": []string{"content.signed"}}, 201, &wh); err != nil {
		return err
	}
	hooks.mu.Lock()
	hooks.secret = wh.Secret
	hooks.mu.Unlock()
	return nil
}

func multipartFile(name string, file []byte) (string, []byte) {
	body, ct := formdata.File("file", name, file, nil)
	return ct, body
}

func (c *apiClient) sign(ctx context.Context, name string, file []byte) (string, error) {
	ct, body := multipartFile(name, file)
	st, b, err := c.do(ctx, "POST", "/api/v1/sign?signing_key_id="+url.QueryEscape(c.key), c.apiKey, ct, body)
	if err != nil {
		return "", err
	}
	if st != http.StatusCreated {
		return "", fmt.Errorf("sign: status %d %s: %.200s", st, problemCode(b), b)
	}
	var s struct {
		RecordID string `json:"record_id"`
	}
	if err := json.Unmarshal(b, &s); err != nil || s.RecordID == "" {
		return "", fmt.Errorf("sign answer %.200s: %v", b, err)
	}
	return s.RecordID, nil
}

func (c *apiClient) verify(ctx context.Context, file []byte) error {
	ct, body := multipartFile("v.jpg", file)
	st, b, err := c.do(ctx, "POST", "/api/v1/verify", "", ct, body)
	if err != nil {
		return err
	}
	if st != http.StatusOK {
		return fmt.Errorf("verify: status %d %s: %.200s", st, problemCode(b), b)
	}
	return nil
}

// problemCode is the code of a problem+json answer ("" for another
// body), first in the error's text so that a long detail cannot hide it.
func problemCode(b []byte) string {
	var p struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(b, &p)
	return p.Code
}

type record struct{ id, name, anchored string }

// records lists every record with its file name and anchoring status.
func (c *apiClient) records(ctx context.Context) ([]record, error) {
	var out []record
	cursor := ""
	for {
		p := "/api/v1/content-records?limit=100"
		if cursor != "" {
			p += "&cursor=" + url.QueryEscape(cursor)
		}
		var page struct {
			Items []struct {
				ID     string `json:"id"`
				Name   string `json:"original_filename"`
				Status string `json:"blockchain_status"`
			} `json:"items"`
			Next string `json:"next_cursor"`
		}
		if err := c.json(ctx, "GET", p, c.apiKey, nil, 200, &page); err != nil {
			return nil, err
		}
		for _, it := range page.Items {
			out = append(out, record{id: it.ID, name: it.Name, anchored: it.Status})
		}
		if page.Next == "" {
			return out, nil
		}
		cursor = page.Next
	}
}
