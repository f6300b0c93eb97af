// Package server wires the origin together: it opens the store in the data
// directory, loads or creates the secrets kept there, builds the domain
// services and the HTTP API, and runs fasthttp. main only turns flags and
// environment into a Config; tests start a real Server on a loopback
// listener in-process.
package server

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/internal/adminguard"
	"github.com/provenant/provenant/internal/connlimit"
	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/anchor/ethchain"
	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/domains"
	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/mail"
	"github.com/provenant/provenant/origin/internal/metrics"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/verifierwasm"
	"github.com/provenant/provenant/origin/internal/webapp"
	"github.com/provenant/provenant/origin/internal/webhooks"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
)

// Defaults.
const (
	DefaultListen  = "127.0.0.1:8080"
	DefaultDataDir = "./data"
	// DefaultMaxRequestBodySize is the cap on any request body (413
	// problem), checked by the API against Content-Length and while
	// streaming. JSON endpoints apply their own, smaller cap. Sized for one
	// image of limits.DefaultMaxUploadBytes plus multipart overhead, and
	// for the whole of a sign-batch request.
	DefaultMaxRequestBodySize = limits.DefaultMaxUploadBytes + 1<<20
	// DefaultDecodeMemory is the memory all image decodes in flight may
	// use together (see Config.DecodeMemory).
	DefaultDecodeMemory = 1 << 30
	// DefaultDecodeWait is how long a decode waits for room in that
	// memory before the request is answered 503 decode_capacity.
	DefaultDecodeWait = 5 * time.Second
	// reclaimAbove is the smallest released decode reservation after which
	// the server collects garbage at once; returnMemoryEvery rate-limits
	// giving memory back to the operating system when decodes go idle.
	reclaimAbove      = 64 << 20
	returnMemoryEvery = 2 * time.Second
	// DefaultGCInterval is how often value-log GC runs (Config.GCInterval).
	DefaultGCInterval = 10 * time.Minute
	// DefaultAdminListen is the admin listener's address: loopback, since
	// metrics and profiles are for the operator, not the public.
	DefaultAdminListen = "127.0.0.1:9090"
	// DefaultChainRPCListen is where the embedded chain's read-only
	// JSON-RPC listens: loopback, on the port Ethereum tools try first.
	DefaultChainRPCListen = "127.0.0.1:8545"
)

// Layout of the data directory.
const (
	dbSubdir      = "badger"
	outboxSubdir  = "outbox"
	secretsSubdir = "secrets"
	demoSubdir    = "demo"
	// blobsSubdir keeps every signed output, content-addressed.
	blobsSubdir = "blobs"
	// spoolSubdir holds video uploads while their request runs.
	spoolSubdir   = "spool"
	jwtKeyFile    = "jwt-ed25519.seed"
	masterKeyFile = "master.key"
	// chainKeyFile holds the embedded chain's node key: its funded sender,
	// and so its genesis, are this installation's alone.
	chainKeyFile = "chain.key"
)

// Config configures a Server. Only DataDir is required; zero values get
// production defaults.
type Config struct {
	// DataDir holds the database, the secrets (unless MasterKey is given)
	// and the mail outbox.
	DataDir string
	// PostgresURL, when set, puts the store on PostgreSQL at this
	// connection URL instead of Badger under DataDir, so that several
	// origins can serve one installation (docs/operations.md, "Scale-out").
	// Every origin of an installation must then get the same MasterKey,
	// which is required; the JWT signing key is derived from it, so a token
	// issued by one origin is accepted by all.
	PostgresURL string
	// BlobsDir keeps the signed files; "" means <DataDir>/blobs. With
	// PostgreSQL every origin of an installation points it at one shared
	// directory, so that a file signed on one origin is served by all
	// (writes are content-addressed atomic renames, safe to share).
	BlobsDir string
	// MultiHost: the object store and the rate-limit store of an
	// installation on several machines (multihost.go).
	MultiHost
	// MasterKey seals signing keys; nil means read <data>/secrets/master.key,
	// creating it on first start. Production should pass it from the
	// environment (PROVENANT_MASTER_KEY) and keep it off the data disk.
	MasterKey []byte
	// Mailer sends reset mails; nil means the outbox in <data>/outbox.
	Mailer mail.Mailer
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// Clock; nil means the system clock.
	Clock clock.Clock
	// Rand; nil means crypto/rand.Reader.
	Rand io.Reader
	// Password overrides argon2id parameters (tests use cheap ones).
	Password accounts.PasswordParams
	// TokenTTL overrides the JWT lifetime.
	TokenTTL time.Duration
	// ResetURL is the link base in password reset mails.
	ResetURL string
	// MaxRequestBodySize; zero means DefaultMaxRequestBodySize.
	MaxRequestBodySize int
	// Limits overrides the rate limit policies (zero: httpapi.DefaultLimits).
	Limits httpapi.Limits
	// Webhooks configures webhook delivery (docs/webhooks.md); zero values
	// get the default schedule and timeout. The server sets Store, Clock,
	// Rand, MasterKey and Logger itself (values given here are ignored); a
	// nil Guard means the SSRF policy with no allow-list.
	Webhooks webhooks.Config
	// Anchor configures Merkle batching and the chain the roots go to.
	Anchor AnchorConfig
	// ImageLimits bounds uploads and decoded images; zero means
	// limits.Default().
	ImageLimits limits.Limits
	// JPEG is the JPEG codec of the sign path (decode of the upload,
	// encode of the marked output); nil means imagex.StdJPEG, pure Go.
	JPEG imagex.JPEGCodec
	// DecodeMemory is the budget, in bytes, shared by every decode in
	// flight (sign, sign-batch items, verify): each reserves its estimated
	// peak (imagex.Info.Cost) first, waits up to DecodeWait for room, and
	// is otherwise answered 503 decode_capacity; an image whose estimate
	// exceeds the whole budget is refused as too_many_pixels. Zero means
	// DefaultDecodeMemory.
	DecodeMemory int64
	// DecodeWait bounds that wait; zero means DefaultDecodeWait.
	DecodeWait time.Duration
	// AdminAddr is where the admin listener (GET /metrics, /debug/pprof/)
	// listens; "" disables it. It is never the public listener.
	AdminAddr string
	// ChainRPCAddr is where the embedded chain answers read-only Ethereum
	// JSON-RPC (ethchain.ReadOnlyMethods) so that anyone can check an
	// anchor with ordinary Ethereum tools; "" disables it, and it is
	// ignored when anchoring goes to an external node (Anchor.Chain.RPCURL).
	ChainRPCAddr string
	// Registry receives the origin's metrics; nil means a fresh registry
	// (metrics are collected either way, and served when AdminAddr is set).
	Registry *prometheus.Registry
	// GCInterval is how often value-log GC runs; zero means
	// DefaultGCInterval, negative disables it.
	GCInterval time.Duration
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client (httpapi.API.ClientIP); empty trusts none.
	TrustedProxies []netip.Prefix
	// Verifier is the directory holding the browser verifier module
	// (verifier.wasm); nil means the one embedded at build time
	// (verifierwasm.Embedded, filled by `make wasm`). Without a module the
	// widget module routes answer 503 widget_not_built.
	Verifier fs.FS
	// Demo serves GET /demo. On the first start of an empty data
	// directory it also creates the demo account and its pictures
	// (origin/internal/demo) under <data>/demo; on a data directory that
	// already had data, /demo shows whatever an earlier start created.
	Demo bool
	// Domains configures organisation domain verification
	// (docs/verification.md, "Who a signer is"). Proof files are fetched
	// through the webhooks' Guard (Webhooks.Guard), so the same SSRF
	// policy and allow-list apply.
	Domains DomainsConfig
	// FFmpeg and FFprobe are the executables video uses; empty means
	// "ffmpeg" and "ffprobe" on PATH. When either is missing, video
	// requests get 503 video_unavailable and /ready says so.
	FFmpeg, FFprobe string
	// VideoWallTime bounds each ffmpeg/ffprobe run of a video request;
	// zero means the video package's default (10 minutes).
	VideoWallTime time.Duration
	// RequestTimeouts are the request deadlines by route class (zero
	// fields: the httpapi defaults; docs/api.md, "Request deadlines").
	RequestTimeouts httpapi.Timeouts
	// Conns is the public listener's connection budget.
	Conns ConnsConfig
	// AdminHosts are the Host names the admin listener accepts besides
	// the loopback ones (a private name for a non-loopback deployment).
	AdminHosts []string
	// AdminToken, when set, is required on every admin request as
	// "Authorization: Bearer <token>" (docs/operations.md, "Admin
	// listener").
	AdminToken string
	// MinFreeDisk is the free space the data directory's file system must
	// keep for a database write to go ahead (store.Config.MinFreeBytes):
	// below it writes answer 507 insufficient_storage and /ready is 503,
	// and the origin refuses to start rather than crash. Zero means
	// store.DefaultMinFreeBytes (256 MiB); negative disables the check.
	MinFreeDisk int64
	// freeSpace replaces statfs for the free-space check (tests).
	freeSpace func(dir string) (int64, error)
	// VideoMemory is the address space all ffmpeg/ffprobe processes may
	// reserve together (video.Config.Memory); zero means
	// video.DefaultMemory.
	VideoMemory int64
	// NearIndex configures the in-memory near-duplicate index.
	NearIndex NearIndexConfig
}

// ConnsConfig is the public listener's connection budget (docs/
// operations.md, "Connection budget"); the trusted proxies are exempt
// from the per-address cap.
type ConnsConfig = connlimit.Budget

// DomainsConfig configures domain verification. The zero value is the
// production setting: DNS through net.DefaultResolver, proof files over
// https on 443.
type DomainsConfig struct {
	// TXT resolves the DNS TXT proof; nil means net.DefaultResolver.
	TXT domains.TXTResolver
	// PlainHTTPPort lets tests serve the proof file over http on a
	// loopback port; it applies only to domains whose every address is in
	// the Guard's allow-list (see domains.Config). No flag sets it.
	PlainHTTPPort uint16
}

// AnchorConfig configures anchoring (see docs/anchoring.md). The zero value
// anchors on the embedded dev chain persisted under <data>/chain, in batches
// of 1,000 records or 60 s.
type AnchorConfig struct {
	// Chain selects the chain: an empty RPCURL means the embedded chain
	// (Chain.DataDir is always the server's DataDir).
	Chain ethchain.Config
	// BatchSize and BatchInterval close a batch (zero: anchor defaults).
	BatchSize     int
	BatchInterval time.Duration
	// PollInterval paces the batcher (zero: anchor default, 1 s).
	PollInterval time.Duration
	// RequireFinalized waits for the chain's finalized tag before a batch
	// counts as anchored (public networks).
	RequireFinalized bool
	// LeaseTTL is the anchoring lease's duration with a PostgreSQL store
	// (zero: anchor.DefaultLeaseTTL): a dead leader is replaced within it.
	LeaseTTL time.Duration
	// ReadTimeout bounds the chain reads behind one record's anchoring
	// state (verify, record detail, certificate, receipt); past it the
	// state is "unavailable", as when the node is down (zero:
	// anchor.DefaultReadTimeout, 5 s).
	ReadTimeout time.Duration
}

// Server is a running origin. Create with New, start with Serve, stop with
// Shutdown.
type Server struct {
	cfg   Config
	log   *slog.Logger
	store store.Store
	// badger is the store when it is the embedded Badger (nil on
	// PostgreSQL): value-log GC, sizes and backups are Badger's.
	badger   *store.Badger
	accounts *accounts.Service
	keys     *keys.Service
	webhooks *webhooks.Service
	chain    *ethchain.Chain
	batcher  *anchor.Batcher
	// anchored is the batcher's Listener: the content records first, then
	// the batch.anchored announcement.
	anchored anchor.Listener
	api      *httpapi.API
	// stopAnchor ends the batcher's Run; anchorDone is closed when it has.
	stopAnchor context.CancelFunc
	anchorDone chan struct{}
	stopNear   context.CancelFunc // ends the near-duplicate index's change feed
	http       *fasthttp.Server
	// bodies sets each request's body deadline and refuses an over-cap
	// declared size early; conns is the public listener's budget, set by
	// Serve (read by /ready).
	bodies *connlimit.Bodies
	conns  atomic.Pointer[connlimit.Listener]
	// admin serves metrics and pprof on adminLn (both nil when disabled).
	admin        *http.Server
	adminLn      net.Listener
	adminServing bool
	// chainRPC serves the embedded chain's read-only JSON-RPC on chainRPCLn
	// (both nil when disabled).
	chainRPC        *http.Server
	chainRPCLn      net.Listener
	chainRPCServing bool
	metrics         *metrics.Metrics
	// stopGC ends the value-log GC loop; gcDone is closed when it has.
	stopGC  context.CancelFunc
	gcDone  chan struct{}
	closeMu sync.Mutex
	closed  bool
}

// deps are the parts that the in-package tests substitute for the real
// ones; New uses none of them, so production wiring has no test seams.
type deps struct {
	// routes registers test-only routes after the built-in ones.
	routes func(*httpapi.API)
	// events replaces the webhook service as the publisher of
	// content.signed, content.verified and batch.anchored.
	events events.Publisher
	// anchorQueue and proofs replace the anchoring queue and the chain
	// checker that content records use.
	anchorQueue content.AnchorQueue
	proofs      content.ProofSource
	// afterRecordCommit is content.Config.AfterCommit (crash tests).
	afterRecordCommit func(recordID string)
	// afterIdempotentWrite is httpapi.Config.AfterIdempotentWrite.
	afterIdempotentWrite func(route string)
}

// New opens the data directory and builds the server; it does not listen.
// On error everything opened so far is closed.
func New(cfg Config) (*Server, error) { return newServer(cfg, deps{}) }

// loadVerifier returns the configured verifier module, or nil (logged)
// when none was built.
func loadVerifier(cfg Config) (*verifierwasm.Module, error) {
	dir := cfg.Verifier
	if dir == nil {
		dir = verifierwasm.Embedded()
	}
	m, err := verifierwasm.Load(dir)
	if errors.Is(err, verifierwasm.ErrNotBuilt) {
		cfg.Logger.Warn("browser verifier module not built: /api/v1/widget/ answers 503 until `make wasm` and a rebuild")
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	cfg.Logger.Info("browser verifier module", "path", "/api/v1/widget/"+m.Name(), "bytes", m.Size())
	return m, nil
}

// newServer builds the server in wiring steps, each building on the ones
// before it (wiring.go); if a step fails, what the earlier ones opened is
// closed, last first.
func newServer(cfg Config, d deps) (_ *Server, err error) {
	w := &wiring{cfg: cfg, d: d}
	if err := w.defaults(); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			w.release()
		}
	}()
	for _, step := range []func() error{
		w.openStore,
		w.loadSecrets,
		w.identityServices,
		w.webhooksAndMetrics,
		w.organisations,
		w.openChain,
		w.contentService,
		w.anchoring,
		w.httpAPI,
	} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	s, err := w.server()
	if err != nil {
		return nil, err
	}
	w.bodyLimits(s)
	if err := w.listeners(s); err != nil {
		return nil, err
	}
	w.publicHTTP(s)
	return s, nil
}

// Serve starts the webhook dispatcher (which first resumes every pending
// delivery already due, e.g. after a crash) and the anchoring batcher
// (which resumes every batch in flight), then accepts connections on ln
// until Shutdown; it returns nil after a Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	s.webhooks.Start()
	s.closeMu.Lock()
	if s.anchorDone == nil && !s.closed {
		ctx, cancel := context.WithCancel(context.Background())
		s.stopAnchor, s.anchorDone = cancel, make(chan struct{})
		go func() {
			defer close(s.anchorDone)
			_ = s.batcher.Run(ctx)
		}()
	}
	if s.gcDone == nil && !s.closed && s.cfg.GCInterval >= 0 && s.badger != nil {
		every := s.cfg.GCInterval
		if every == 0 {
			every = DefaultGCInterval
		}
		ctx, cancel := context.WithCancel(context.Background())
		s.stopGC, s.gcDone = cancel, make(chan struct{})
		go func() {
			defer close(s.gcDone)
			s.badger.RunGC(ctx, every, s.log.With("component", "badger"))
		}()
	}
	s.serveAside(s.admin, s.adminLn, &s.adminServing, "admin listening", "admin listener stopped")
	s.serveAside(s.chainRPC, s.chainRPCLn, &s.chainRPCServing, "embedded chain read-only RPC listening", "chain RPC listener stopped")
	s.closeMu.Unlock()
	cl := connlimit.NewListener(ln, connlimit.Config{MaxConns: s.cfg.Conns.MaxConns, MaxConnsPerIP: s.cfg.Conns.MaxConnsPerIP,
		Exempt: s.cfg.TrustedProxies, Logger: s.log.With("component", "connections")})
	s.conns.Store(cl)
	s.log.Info("origin listening", "addr", ln.Addr().String(), "data_dir", s.cfg.DataDir,
		"max_conns", s.cfg.Conns.MaxConns, "max_conns_per_ip", s.cfg.Conns.MaxConnsPerIP)
	if err := s.http.Serve(cl); err != nil {
		return fmt.Errorf("server: serve: %w", err)
	}
	return nil
}

// Shutdown stops accepting connections, waits for in-flight requests (up
// to ctx's deadline; past it, cancels their contexts, closes the
// connections still open and waits up to stalledGrace for their handlers
// to return), stops the webhook dispatcher (attempts in flight are
// cancelled and stay queued for the next start) and the batcher (batches in
// flight resume at the next start), waits for queued mail, closes the chain
// (the embedded chain flushes its database) and closes the store cleanly.
// The chain and the store are never closed under a running handler: if
// one is still running after the grace, they are left open and Shutdown
// returns an error. It is safe to call more than once.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	httpErr := s.http.ShutdownWithContext(ctx)
	if httpErr != nil && ctx.Err() != nil {
		// Past the deadline: the handlers still running see their
		// contexts end, and stalled connections are closed.
		s.api.Cancel()
		s.closeStalled()
	}
	// The store and the chain close only once no handler can touch them.
	wait, cancelWait := context.WithTimeout(context.Background(), stalledGrace)
	handlersErr := s.api.Wait(wait)
	cancelWait()
	var adminErr error
	if s.admin != nil {
		adminErr = s.admin.Shutdown(ctx)
		_ = s.adminLn.Close() // when Serve never ran; already closed otherwise
	}
	if s.chainRPC != nil {
		adminErr = errors.Join(adminErr, s.chainRPC.Shutdown(ctx))
		_ = s.chainRPCLn.Close()
	}
	if s.stopGC != nil {
		s.stopGC()
		<-s.gcDone
	}
	s.webhooks.Close()
	if s.stopAnchor != nil {
		s.stopAnchor()
		<-s.anchorDone
	}
	s.accounts.Close()
	if handlersErr != nil {
		// A handler that ignores its cancelled context: closing the store
		// under it could corrupt what it writes, so the store and the
		// chain are left to the process exit (Badger replays its log at
		// the next start).
		n := s.api.Running()
		s.log.Error("shutdown: handlers still running; store and chain left open", "handlers", n)
		return errors.Join(httpErr, adminErr, fmt.Errorf("server: %d handlers still running after their contexts were cancelled; store and chain left open", n))
	}
	s.stopNear()
	chainErr := s.chain.Close()
	storeErr := s.store.Close()
	s.log.Info("origin stopped")
	return errors.Join(httpErr, adminErr, chainErr, storeErr)
}

// pathLen is the length of the path part of a request URI (before '?').
func pathLen(uri []byte) int {
	for i, c := range uri {
		if c == '?' {
			return i
		}
	}
	return len(uri)
}

// adminOnly lets a request through to next only when guard accepts it
// (download: as a download that must never reach a browser).
func adminOnly(guard *adminguard.Guard, download bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := adminguard.Request{Host: r.Host, Origin: r.Header.Get("Origin"), SecFetchSite: r.Header.Get("Sec-Fetch-Site"),
			SecFetchMode: r.Header.Get("Sec-Fetch-Mode"), Authorization: r.Header.Get("Authorization")}
		check := guard.Check
		if download {
			check = guard.CheckDownload
		}
		if err := check(req); err != nil {
			status, code := http.StatusForbidden, "admin_forbidden"
			if errors.Is(err, adminguard.ErrToken) {
				status, code = http.StatusUnauthorized, "admin_token"
				w.Header().Set("WWW-Authenticate", `Bearer realm="provenant-admin"`)
			}
			w.Header().Set("Content-Type", "application/problem+json")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"type":"%s%s","title":"Refused by the admin listener","status":%d,"code":"%s"}`, httpapi.ProblemTypeBase, code, status, code)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// stalledGrace is how long Shutdown waits, past its deadline, for the
// handlers whose contexts it cancelled to return.
const stalledGrace = 5 * time.Second

// closeStalled closes every connection still open when Shutdown's
// deadline passed (stalled clients hold them otherwise until their
// timeouts); Shutdown then waits for their handlers.
func (s *Server) closeStalled() {
	cl := s.conns.Load()
	if cl == nil {
		return
	}
	n := cl.CloseAll()
	s.log.Warn("shutdown deadline passed; requests cancelled and connections closed", "connections", n, "handlers", s.api.Running())
}

// errSaturated is the readiness failure while the connection budget is
// under pressure.
var errSaturated = errors.New("connection budget saturated")

// connsCheck fails while the public listener's connection budget is
// saturated (connlimit.Stats.Saturated), so that a load balancer sends
// new clients elsewhere.
func connsCheck(ref *atomic.Pointer[Server]) error {
	s := ref.Load()
	if s == nil {
		return nil
	}
	cl := s.conns.Load()
	if cl == nil {
		return nil
	}
	if st := cl.Stats(); st.Saturated {
		return fmt.Errorf("%w: %d open of %d, %d refused, %d evicted, %d failed accepts", errSaturated, st.Open, st.MaxConns, st.Refused+st.RefusedPerIP, st.Evicted, st.AcceptErrors)
	}
	return nil
}

// registerConnMetrics exports the connection budget (docs/operations.md,
// "Metrics and profiling"), read at each scrape.
func registerConnMetrics(reg prometheus.Registerer, stats func() connlimit.Stats) error {
	gauge := func(name, help string, v func(connlimit.Stats) int) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 { return float64(v(stats())) })
	}
	counter := func(name, help string, labels prometheus.Labels, v func(connlimit.Stats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels}, func() float64 { return float64(v(stats())) })
	}
	const refusedHelp = "Connections answered and closed at accept: per_ip (over --max-conns-per-ip, 429) or full (every connection busy, 503)."
	for _, c := range []prometheus.Collector{
		gauge("provenant_connections_open", "Connections open on the public listener.", func(s connlimit.Stats) int { return s.Open }),
		gauge("provenant_connections_busy", "Open connections inside a request.", func(s connlimit.Stats) int { return s.Busy }),
		gauge("provenant_connections_max", "The connection cap in force (--max-conns, fitted to the open-files limit; 0: none).", func(s connlimit.Stats) int { return s.MaxConns }),
		counter("provenant_connections_refused_total", refusedHelp, prometheus.Labels{"reason": "per_ip"}, func(s connlimit.Stats) uint64 { return s.RefusedPerIP }),
		counter("provenant_connections_refused_total", refusedHelp, prometheus.Labels{"reason": "full"}, func(s connlimit.Stats) uint64 { return s.Refused }),
		counter("provenant_connections_reclaimed_total", "Stalled or idle connections closed to make room at the cap.", nil, func(s connlimit.Stats) uint64 { return s.Evicted }),
		counter("provenant_accept_errors_total", "Failed accepts (each followed by a pause), e.g. out of file descriptors.", nil, func(s connlimit.Stats) uint64 { return s.AcceptErrors }),
	} {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("register connection metrics: %w", err)
		}
	}
	return nil
}

// ConnStats returns the public listener's connection budget (zero before
// Serve).
func (s *Server) ConnStats() connlimit.Stats {
	if cl := s.conns.Load(); cl != nil {
		return cl.Stats()
	}
	return connlimit.Stats{}
}

// ChainRPCAddr returns the address of the embedded chain's read-only
// JSON-RPC listener, or nil when it is disabled.
func (s *Server) ChainRPCAddr() net.Addr {
	if s.chainRPCLn == nil {
		return nil
	}
	return s.chainRPCLn.Addr()
}

// AdminAddr returns the admin listener's address, or nil when it is
// disabled.
func (s *Server) AdminAddr() net.Addr {
	if s.adminLn == nil {
		return nil
	}
	return s.adminLn.Addr()
}

// reclaimMemory returns the decode budget's Released hook. After a decode
// of at least reclaimAbove bytes it collects at once, before a waiting
// decode is let in (pixel buffers hold no pointers: about 5 ms for a
// gigabyte of them), so that the next decode reuses the freed memory
// instead of growing the heap by its own size while the garbage waits for
// the next cycle. When nothing is reserved any more it also hands the free
// memory back to the operating system (returnFree, debug.FreeOSMemory in
// the server), off the request's goroutine since that takes about 200 ms
// per gigabyte, and at most once per every. Without it, the resident
// memory of a burst of large decodes stays for minutes, as the runtime's
// background scavenger returns it slowly while the server is idle.
//
// The rate limit delays a return rather than dropping it: a burst goes
// idle several times (between one decode's release and the next waiter's
// grant), and the release that ends it usually comes less than every after
// the previous return. Dropping that one left the last decodes' memory
// resident; instead one return is scheduled for the end of the interval,
// and releases while it waits join it.
func reclaimMemory(every time.Duration, returnFree func()) func(n, inUse int64) {
	var (
		mu      sync.Mutex
		last    time.Time
		pending bool
	)
	// The return is no longer pending once it starts: a release that goes
	// idle while it runs (FreeOSMemory's collection may already have
	// passed that memory by) schedules the next one instead of joining it.
	run := func() {
		mu.Lock()
		last, pending = time.Now(), false
		mu.Unlock()
		returnFree()
	}
	return func(n, inUse int64) {
		if n < reclaimAbove {
			return
		}
		runtime.GC()
		if inUse > 0 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if pending {
			return
		}
		pending = true
		if wait := every - time.Since(last); wait > 0 {
			time.AfterFunc(wait, run)
			return
		}
		go run()
	}
}

// readyProbeKey is the key the store check reads; it is never written, so
// the read exercises the store's read path and answers ErrNotFound.
var readyProbeKey = []byte("ready-probe")

// readyChecks are the dependencies GET /ready checks: a store read, the
// chain's head block number, and the mailer when it can tell (the outbox
// is writable, or SMTP is configured).
func readyChecks(st store.Store, chain *ethchain.Chain, mailer mail.Mailer) []httpapi.ReadyCheck {
	var space []httpapi.ReadyCheck
	if b, ok := st.(*store.Badger); ok {
		// Writes are refused under the free-space margin: not ready.
		space = append(space, httpapi.ReadyCheck{Name: "disk", Check: func(context.Context) error { return b.CheckSpace() }},
			writableCheck(b))
	}
	return append(space, readyChecksOf(st, chain, mailer)...)
}

func readyChecksOf(st store.Store, chain *ethchain.Chain, mailer mail.Mailer) []httpapi.ReadyCheck {
	checks := []httpapi.ReadyCheck{
		{Name: "store", Check: func(ctx context.Context) error {
			return st.View(ctx, func(txn store.Txn) error {
				if _, err := txn.Get(readyProbeKey); err != nil && !errors.Is(err, store.ErrNotFound) {
					return err
				}
				return nil
			})
		}},
		{Name: "chain", Check: func(ctx context.Context) error {
			_, err := chain.Head(ctx)
			return err
		}},
	}
	if r, ok := mailer.(interface{ Ready(context.Context) error }); ok {
		checks = append(checks, httpapi.ReadyCheck{Name: "mailer", Check: r.Ready})
	}
	return checks
}

// errorHandler answers requests fasthttp could not read, as problem+json,
// and logs them as the API's handler logs the others: one "request" line,
// with a request id, but no method or route (the request line may not have
// been read) and nothing of the request's bytes.
func errorHandler(log *slog.Logger, bodies *connlimit.Bodies) func(ctx *fasthttp.RequestCtx, err error) {
	return func(ctx *fasthttp.RequestCtx, err error) {
		var p *httpapi.Problem
		var small *fasthttp.ErrSmallBuffer
		switch {
		case bodies.OverCap(ctx) || errors.Is(err, fasthttp.ErrBodyTooLarge):
			p = httpapi.NewProblem(fasthttp.StatusRequestEntityTooLarge, httpapi.CodeBodyTooLarge, "Request body too large")
		case errors.As(err, &small):
			p = httpapi.NewProblem(fasthttp.StatusRequestHeaderFieldsTooLarge, httpapi.CodeHeadersTooLarge, "Request headers too large")
		case errors.Is(err, os.ErrDeadlineExceeded):
			p = httpapi.NewProblem(fasthttp.StatusRequestTimeout, codeRequestTimeout, "The request was not received in time")
		default:
			p = httpapi.NewProblem(fasthttp.StatusBadRequest, httpapi.CodeBadRequest, "Malformed HTTP request")
		}
		ctx.SetConnectionClose()
		httpapi.WriteProblem(ctx, p)
		log.Info("request", "method", "-", "route", "-", "status", p.Status, "duration_ms", 0, "bytes_in", 0,
			"bytes_out", len(ctx.Response.Body()), "client_ip", ctx.RemoteIP().String(), "request_id", httpapi.RequestID(ctx),
			"error", p.Code)
	}
}

// codeRequestTimeout (408): the header or the body did not arrive within
// its deadline (docs/api.md, "Connections").
const codeRequestTimeout = "request_timeout"

// fasthttpLogger receives fasthttp's own messages. Only the format string
// is logged: fasthttp formats connection errors with the raw request
// bytes, Authorization header included.
type fasthttpLogger struct{ l *slog.Logger }

func (f fasthttpLogger) Printf(format string, _ ...any) {
	f.l.Debug("fasthttp: " + format)
}

// ParseMasterKey decodes a master key given as 64 hex digits or as
// standard/URL base64 of 32 bytes (the PROVENANT_MASTER_KEY format).
func ParseMasterKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if b, err := hex.DecodeString(s); err == nil && len(b) == keys.MasterKeySize {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == keys.MasterKeySize {
			return b, nil
		}
	}
	return nil, fmt.Errorf("server: master key must be %d bytes as hex or base64", keys.MasterKeySize)
}

// loadOrCreateSecret reads a size-byte secret from path (stored hex), or
// creates it with mode 0600 if the file does not exist.
func loadOrCreateSecret(path string, size int, rnd io.Reader) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		key, derr := hex.DecodeString(strings.TrimSpace(string(b)))
		if derr != nil || len(key) != size {
			return nil, fmt.Errorf("server: secret file %s is malformed", path)
		}
		return key, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("server: read secret: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("server: create secrets dir: %w", err)
	}
	key := make([]byte, size)
	if _, err := io.ReadFull(rnd, key); err != nil {
		return nil, fmt.Errorf("server: generate secret: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("server: write secret: %w", err)
	}
	if err := syncFile(tmp); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("server: install secret: %w", err)
	}
	return key, nil
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("server: sync secret: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("server: sync secret: %w", err)
	}
	return nil
}

// mountWebApp serves the web app under "/" on the API's router; its
// session form posts are rate-limited per client IP like the login route.
func mountWebApp(api *httpapi.API, acc *accounts.Service, cfg Config) error {
	allow, err := api.PageLimiter("web-session")
	if err != nil {
		return fmt.Errorf("server: web app limiter: %w", err)
	}
	web, err := webapp.New(webapp.Config{Accounts: acc, Clock: cfg.Clock, AllowAuth: allow, IsTLS: api.RequestIsTLS, Logger: cfg.Logger})
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	web.Mount(api)
	return nil
}
