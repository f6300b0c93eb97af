package server

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/internal/adminguard"
	"github.com/provenant/provenant/internal/connlimit"
	"github.com/provenant/provenant/internal/defaults"
	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/anchor/ethchain"
	"github.com/provenant/provenant/origin/internal/c2pacert"
	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/content/badges"
	"github.com/provenant/provenant/origin/internal/content/manifests"
	"github.com/provenant/provenant/origin/internal/content/nearindex"
	"github.com/provenant/provenant/origin/internal/content/receipts"
	"github.com/provenant/provenant/origin/internal/demo"
	"github.com/provenant/provenant/origin/internal/domains"
	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/mail"
	"github.com/provenant/provenant/origin/internal/metrics"
	"github.com/provenant/provenant/origin/internal/store"
	"github.com/provenant/provenant/origin/internal/video"
	"github.com/provenant/provenant/origin/internal/webhooks"
	"github.com/provenant/provenant/shared/clock"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/widget"
)

// wiring carries what newServer's steps build, in the order they build it:
// each step reads the fields of the steps before it and sets its own. A
// step that opens something that must be released if a later step fails
// registers the release with onError.
type wiring struct {
	cfg Config
	d   deps

	// store
	st    store.Store
	bdg   *store.Badger
	fresh bool
	// secrets
	secrets string // <data>/secrets
	seed    []byte // the JWT signing key's seed
	master  []byte // seals signing keys, webhook secrets and the C2PA key
	mailer  mail.Mailer
	// identity
	acc *accounts.Service
	ks  *keys.Service
	dom *domains.Service
	// webhooks and metrics
	reg   *prometheus.Registry
	met   *metrics.Metrics
	guard *webhooks.Guard
	wh    *webhooks.Service
	pub   events.Publisher
	// chain and anchoring
	chainCfg ethchain.Config
	chain    *ethchain.Chain
	counted  anchor.Chain // chain, counted by the metrics
	anchored anchor.Listeners
	batcher  *anchor.Batcher
	// content
	spool    string
	vidErr   error // why video is disabled (nil when it is not)
	recs     *content.Service
	c2pa     *manifests.Resolver
	receipts *receipts.Service
	badges   *badges.Service
	near     *nearindex.Index
	stopNear context.CancelFunc
	// HTTP API
	demoDir fs.FS
	srvRef  *atomic.Pointer[Server]
	api     *httpapi.API

	// undo releases, last first, what the steps opened (onError).
	undo []func()
}

// onError registers f to run if a later step fails.
func (w *wiring) onError(f func()) { w.undo = append(w.undo, f) }

// release runs the registered releases in reverse order, as deferred
// closes would.
func (w *wiring) release() {
	for i := len(w.undo) - 1; i >= 0; i-- {
		w.undo[i]()
	}
}

// defaults fills the zero values of the Config and creates the data
// directory.
func (w *wiring) defaults() error {
	cfg := &w.cfg
	if cfg.DataDir == "" {
		return errors.New("server: DataDir is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.System{}
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	cfg.MaxRequestBodySize = defaults.Positive(cfg.MaxRequestBodySize, DefaultMaxRequestBodySize)
	cfg.Conns = cfg.Conns.WithDefaults()
	cfg.DecodeMemory = defaults.Positive(cfg.DecodeMemory, DefaultDecodeMemory)
	cfg.DecodeWait = defaults.Positive(cfg.DecodeWait, DefaultDecodeWait)
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("server: create data dir: %w", err)
	}
	return nil
}

// openStore opens the store (Badger under the data directory, or
// PostgreSQL); it is closed if a later step fails.
func (w *wiring) openStore() error {
	st, bdg, fresh, err := openStore(w.cfg)
	if err != nil {
		return err
	}
	w.st, w.bdg, w.fresh = st, bdg, fresh
	w.onError(func() { _ = st.Close() })
	return nil
}

// loadSecrets loads or creates the JWT seed and the master key, and picks
// the mailer.
func (w *wiring) loadSecrets() (err error) {
	cfg := w.cfg
	w.secrets = filepath.Join(cfg.DataDir, secretsSubdir)
	if cfg.PostgresURL != "" {
		w.seed = sharedJWTSeed(cfg.MasterKey)
	} else {
		if w.seed, err = loadOrCreateSecret(filepath.Join(w.secrets, jwtKeyFile), ed25519.SeedSize, cfg.Rand); err != nil {
			return err
		}
	}
	w.master = cfg.MasterKey
	if w.master == nil {
		if w.master, err = loadOrCreateSecret(filepath.Join(w.secrets, masterKeyFile), keys.MasterKeySize, cfg.Rand); err != nil {
			return err
		}
	}
	w.mailer = cfg.Mailer
	if w.mailer == nil {
		w.mailer = &mail.Outbox{Dir: filepath.Join(cfg.DataDir, outboxSubdir), Clock: cfg.Clock}
	}
	return nil
}

// identityServices builds the accounts and the signing keys.
func (w *wiring) identityServices() (err error) {
	cfg := w.cfg
	w.acc, err = accounts.New(accounts.Config{
		Store: w.st, Clock: cfg.Clock, Mailer: w.mailer, Rand: cfg.Rand, Logger: cfg.Logger,
		Password: cfg.Password, TokenKey: ed25519.NewKeyFromSeed(w.seed), TokenTTL: cfg.TokenTTL, ResetURL: cfg.ResetURL,
	})
	if err != nil {
		return err
	}
	w.ks, err = keys.New(keys.Config{Store: w.st, Clock: cfg.Clock, Rand: cfg.Rand, MasterKey: w.master, Logger: cfg.Logger})
	return err
}

// webhooksAndMetrics builds the metrics and the webhook service, whose
// attempts the metrics count.
func (w *wiring) webhooksAndMetrics() (err error) {
	cfg, st := w.cfg, w.st
	wc := cfg.Webhooks
	wc.Store, wc.Clock, wc.Rand, wc.MasterKey = st, cfg.Clock, cfg.Rand, w.master
	// Several origins may dispatch from a shared store: claim each attempt.
	wc.Claims = cfg.PostgresURL != ""
	wc.Logger = cfg.Logger.With("component", "webhooks")
	w.reg = cfg.Registry
	if w.reg == nil {
		w.reg = prometheus.NewRegistry()
	}
	// The sources are closures over services built below; a scrape can only
	// happen once the admin listener serves, after New returned.
	metrSrc := metrics.Sources{
		AnchorQueue:  func(ctx context.Context) (anchor.QueueStats, error) { return anchor.ReadQueueStats(ctx, st) },
		WebhookQueue: func(ctx context.Context) (int, error) { return w.wh.QueueDepth(ctx) },
		StoreSizes:   storeSizes(w.bdg),
		Now:          cfg.Clock.Now,
	}
	met, err := metrics.New(w.reg, metrSrc)
	if err != nil {
		return fmt.Errorf("server: metrics: %w", err)
	}
	w.met = met
	if prev := wc.OnAttempt; prev != nil {
		wc.OnAttempt = func(r webhooks.AttemptResult) { met.WebhookAttempt(r); prev(r) }
	} else {
		wc.OnAttempt = met.WebhookAttempt
	}
	if wc.Guard == nil {
		wc.Guard = webhooks.NewGuard(webhooks.GuardConfig{})
	}
	w.guard = wc.Guard
	w.wh, err = webhooks.New(wc)
	return err
}

// organisations backfills the organisation name index and builds domain
// verification, which fetches proof files through the webhooks' Guard;
// then picks the events publisher.
func (w *wiring) organisations() (err error) {
	cfg := w.cfg
	if n, err := w.acc.IndexOrgNames(context.Background()); err != nil {
		return err
	} else if n > 0 {
		cfg.Logger.Info("organisation name index backfilled", "accounts", n)
	}
	w.dom, err = domains.New(domains.Config{Store: w.st, Clock: cfg.Clock, Rand: cfg.Rand, Guard: w.guard, TXT: cfg.Domains.TXT,
		PlainHTTPPort: cfg.Domains.PlainHTTPPort, Names: w.acc, Logger: cfg.Logger.With("component", "domains")})
	if err != nil {
		return err
	}
	w.pub = w.wh
	if w.d.events != nil {
		w.pub = w.d.events
	}
	return nil
}

// openChain opens the chain the roots go to (the embedded one with its
// node key, or an external node); it is closed if a later step fails.
func (w *wiring) openChain() (err error) {
	cfg := w.cfg
	chainCfg := cfg.Anchor.Chain
	chainCfg.DataDir = cfg.DataDir
	if chainCfg.RPCURL == "" {
		if chainCfg.NodeKey, err = loadOrCreateSecret(filepath.Join(w.secrets, chainKeyFile), ethchain.NodeKeySize, cfg.Rand); err != nil {
			return err
		}
	}
	if chainCfg, err = chainCfg.Validate(); err != nil {
		return err
	}
	chain, err := ethchain.Open(context.Background(), chainCfg)
	if err != nil {
		return fmt.Errorf("server: open chain: %w", err)
	}
	w.chainCfg, w.chain = chainCfg, chain
	w.onError(func() { _ = chain.Close() })
	w.counted = w.met.Chain(chain)
	return nil
}

// contentService builds the content records and what they sign and
// verify with: decode budget, blobs, video spool and engine, the C2PA
// authority and the near-duplicate index (stopped if a later step fails);
// then the public views over the records: the C2PA resolver, receipts
// and badges.
//
// Content records queue into the anchoring queue and read proofs from the
// store, neither of which needs the batcher; so the content service exists
// before the batcher, which is given it as its Listener (anchoring).
func (w *wiring) contentService() (err error) {
	cfg, st := w.cfg, w.st
	var aq content.AnchorQueue = anchor.NewQueue(cfg.Clock)
	var proofs content.ProofSource = anchor.Checker{Proofs: anchor.NewProver(st), Chain: w.counted, MinConfirmations: w.chainCfg.Confirmations, ReadTimeout: cfg.Anchor.ReadTimeout}
	if w.d.anchorQueue != nil {
		aq = w.d.anchorQueue
	}
	if w.d.proofs != nil {
		proofs = w.d.proofs
	}
	budget, err := imagex.NewBudget(imagex.BudgetConfig{Capacity: cfg.DecodeMemory, Wait: cfg.DecodeWait, Released: reclaimMemory(returnMemoryEvery, debug.FreeOSMemory)})
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	kept, err := openBlobs(cfg)
	if err != nil {
		return err
	}
	// Video uploads are spooled to disk in the data directory (not the
	// system's temporary directory, often memory-backed); what a crash
	// left there was never referenced.
	w.spool = filepath.Join(cfg.DataDir, spoolSubdir)
	if err := os.RemoveAll(w.spool); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	if err := os.MkdirAll(w.spool, 0o700); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	// Video needs ffmpeg and ffprobe; without them the server still signs
	// and verifies images and answers video uploads with 503.
	vid, vidErr := video.New(video.Config{FFmpeg: cfg.FFmpeg, FFprobe: cfg.FFprobe, WallTime: cfg.VideoWallTime, Memory: cfg.VideoMemory})
	if vidErr != nil {
		cfg.Logger.Warn("video signing and verification are disabled: ffmpeg or ffprobe not found", "err", vidErr)
	}
	w.vidErr = vidErr
	// C2PA manifests are signed under the origin's own CA, its key sealed
	// like the signing keys.
	c2paCA, err := c2pacert.New(c2pacert.Config{Store: st, Sealer: w.ks, Clock: cfg.Clock, Rand: cfg.Rand, Logger: cfg.Logger})
	if err != nil {
		return err
	}
	near, stopNear := startNear(st, cfg.NearIndex, cfg.Logger)
	w.near, w.stopNear = near, stopNear
	w.onError(func() { stopNear() })
	w.recs, err = content.New(content.Config{
		Store: st, Keys: w.ks, Accounts: w.acc, Clock: cfg.Clock, Rand: cfg.Rand, Events: w.pub, Identities: w.dom, Logger: cfg.Logger,
		Media:       content.MediaConfig{Limits: cfg.ImageLimits, DecodeBudget: budget, JPEG: cfg.JPEG, Video: vid},
		Near:        content.NearConfig{Index: near},
		Chain:       content.ChainConfig{Queue: aq, Proofs: proofs, Network: w.chainCfg.Describe()},
		Outputs:     content.OutputConfig{Blobs: kept, C2PA: c2paCA},
		AfterCommit: w.d.afterRecordCommit,
	})
	if err != nil {
		return err
	}
	w.c2pa, err = manifests.NewResolver(manifests.Config{Store: st, Records: w.recs, Clock: cfg.Clock, Authority: c2paCA,
		Limits: cfg.ImageLimits, DecodeBudget: budget})
	if err != nil {
		return err
	}
	if w.receipts, err = receipts.New(receipts.Config{Records: w.recs, Network: w.chainCfg.Describe()}); err != nil {
		return err
	}
	w.badges, err = badges.New(badges.Config{Records: w.recs, Network: w.chainCfg.Describe()})
	return err
}

// anchoring builds the batcher. Its Listener marks the content records
// anchored first, then announces batch.anchored, both inside the
// transaction that marks the batch anchored.
func (w *wiring) anchoring() (err error) {
	cfg, chainCfg := w.cfg, w.chainCfg
	w.anchored = anchor.Listeners{w.recs, anchor.Announcer{Events: w.pub}}
	lease, err := anchorLease(cfg, w.st)
	if err != nil {
		return err
	}
	w.batcher, err = anchor.New(anchor.Config{
		Store: w.st, Chain: w.counted, Anchored: w.anchored, OnBatchClosed: w.met.BatchClosed, Clock: cfg.Clock, Logger: cfg.Logger.With("component", "anchor"),
		Lease:     lease,
		BatchSize: cfg.Anchor.BatchSize, BatchInterval: cfg.Anchor.BatchInterval, PollInterval: cfg.Anchor.PollInterval,
		Confirmations: chainCfg.Confirmations, RequireFinalized: cfg.Anchor.RequireFinalized || chainCfg.RequireFinalized,
		MaxFeeCap: chainCfg.MaxFeeCap,
	})
	return err
}

// demo seeds the demo account and pictures on the first start of an
// empty data directory (Config.Demo) and serves what is there.
func (w *wiring) demo() error {
	cfg := w.cfg
	if !cfg.Demo {
		return nil
	}
	dir := filepath.Join(cfg.DataDir, demoSubdir)
	if w.fresh {
		flush := func(ctx context.Context) error { _, err := w.batcher.Flush(ctx); return err }
		if _, err := demo.Seed(context.Background(), demo.Config{Accounts: w.acc, Keys: w.ks, Records: w.recs, Dir: dir, Rand: cfg.Rand, Flush: flush}); err != nil {
			return fmt.Errorf("server: %w", err)
		}
		cfg.Logger.Info("demo account and pictures created", "org_name", demo.OrgName, "path", "/demo")
	}
	w.demoDir = os.DirFS(dir)
	return nil
}

// httpAPI builds the HTTP API over the services, with its readiness
// checks, the web app and the tests' routes.
func (w *wiring) httpAPI() error {
	cfg := w.cfg
	verifier, err := loadVerifier(cfg)
	if err != nil {
		return err
	}
	if err := w.demo(); err != nil {
		return err
	}
	// srvRef lets the readiness check see the listener Serve creates.
	w.srvRef = new(atomic.Pointer[Server])
	srvRef, vidErr := w.srvRef, w.vidErr
	limiters, err := rateLimiters(cfg, w.reg)
	if err != nil {
		return err
	}
	w.api, err = httpapi.New(httpapi.Config{Limiters: limiters, Store: w.st, Accounts: w.acc, Keys: w.ks, Webhooks: w.wh, Clock: cfg.Clock, Logger: cfg.Logger, Limits: cfg.Limits,
		C2PA: w.c2pa, Receipts: w.receipts, Badges: w.badges,
		MaxBody: cfg.MaxRequestBodySize, Records: w.recs, Ready: append(readyChecks(w.st, w.chain, w.mailer), httpapi.ReadyCheck{Name: "video", Optional: true, Check: func(context.Context) error { return vidErr }},
			httpapi.ReadyCheck{Name: "connections", Check: func(context.Context) error { return connsCheck(srvRef) }}, nearReadyCheck(w.near)), Verifier: verifier,
		Widget: widget.FS(), Demo: w.demoDir, Observer: w.met, TrustedProxies: cfg.TrustedProxies, Domains: w.dom,
		SpoolDir: w.spool, Timeouts: cfg.RequestTimeouts, AfterIdempotentWrite: w.d.afterIdempotentWrite})
	if err != nil {
		return err
	}
	if err := mountWebApp(w.api, w.acc, cfg); err != nil {
		return err
	}
	if w.d.routes != nil {
		w.d.routes(w.api)
	}
	return nil
}

// server assembles the Server from what the steps built and registers its
// connection metrics.
func (w *wiring) server() (*Server, error) {
	s := &Server{cfg: w.cfg, log: w.cfg.Logger, store: w.st, badger: w.bdg, accounts: w.acc, keys: w.ks, webhooks: w.wh, chain: w.chain, batcher: w.batcher,
		anchored: w.anchored, api: w.api, metrics: w.met}
	s.stopNear = w.stopNear
	w.srvRef.Store(s)
	if err := registerConnMetrics(w.reg, s.ConnStats); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	return s, nil
}

// bodyLimits sets s.bodies: a declared size over its route's cap is
// refused before any of the body is read: the routes with a cap of their
// own (media uploads) by method and path, every other request by the
// server's cap.
func (w *wiring) bodyLimits(s *Server) {
	cfg := w.cfg
	maxBody := int64(cfg.MaxRequestBodySize)
	routeCap := map[string]int64{}
	for _, rt := range w.api.Routes() {
		if rt.MaxBody > maxBody && !strings.Contains(rt.Path, "{") {
			routeCap[rt.Method+" "+rt.Path] = rt.MaxBody
		}
	}
	allCaps := maxBody
	for _, c := range routeCap {
		allCaps = max(allCaps, c)
	}
	s.bodies = connlimit.NewBodies(connlimit.BodyConfig{HeaderTimeout: cfg.Conns.HeaderTimeout, MinRate: cfg.Conns.MinBodyRate, MaxBody: allCaps,
		Limit: func(h *fasthttp.RequestHeader) int64 {
			if c, ok := routeCap[string(h.Method())+" "+string(h.RequestURI()[:pathLen(h.RequestURI())])]; ok {
				return c
			}
			return maxBody
		},
		Refuse: func(ctx *fasthttp.RequestCtx) {
			httpapi.WriteProblem(ctx, httpapi.NewProblem(fasthttp.StatusRequestEntityTooLarge, httpapi.CodeBodyTooLarge, "Request body too large"))
		}})
}

// listeners opens the admin and chain RPC listeners now, so that a taken
// port fails New rather than Serve; Serve starts serving them.
func (w *wiring) listeners(s *Server) (err error) {
	cfg := w.cfg
	if cfg.AdminAddr != "" {
		if s.adminLn, err = net.Listen("tcp", cfg.AdminAddr); err != nil {
			return fmt.Errorf("server: admin listen: %w", err)
		}
		guard := adminguard.New(cfg.AdminHosts, cfg.AdminToken)
		mux := http.NewServeMux()
		mux.Handle("/", adminOnly(guard, false, w.met.Handler()))
		mux.Handle("GET /backup", adminOnly(guard, true, http.HandlerFunc(s.handleBackup)))
		s.admin = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelDebug)}
	}
	if cfg.ChainRPCAddr != "" && w.chain.Embedded() {
		h, err := w.chain.ReadOnlyRPC()
		if err != nil {
			return fmt.Errorf("server: %w", err)
		}
		if s.chainRPCLn, err = net.Listen("tcp", cfg.ChainRPCAddr); err != nil {
			if s.adminLn != nil {
				_ = s.adminLn.Close()
			}
			return fmt.Errorf("server: chain RPC listen: %w", err)
		}
		s.chainRPC = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second,
			ErrorLog: slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelDebug)}
	}
	return nil
}

// publicHTTP sets s.http, the public listener's fasthttp server.
func (w *wiring) publicHTTP(s *Server) {
	cfg := w.cfg
	s.http = &fasthttp.Server{
		Handler:               s.bodies.Handler(w.api.Handler()),
		ErrorHandler:          errorHandler(cfg.Logger, s.bodies),
		HeaderReceived:        s.bodies.HeaderReceived,
		ExpectHandler:         s.bodies.Expect,
		Name:                  "provenant-origin",
		NoDefaultServerHeader: true,
		MaxRequestBodySize:    cfg.MaxRequestBodySize,
		// Uploads are streamed to the handlers, which hash while reading
		// and enforce the caps themselves (httpapi/upload.go); fasthttp
		// neither buffers nor pre-parses multipart bodies.
		StreamRequestBody:            true,
		DisablePreParseMultipartForm: true,
		ReadBufferSize:               16 << 10, // also the cap on request headers
		// ReadTimeout bounds the header; HeaderReceived gives the body its
		// own deadline from its declared size (connlimit.Bodies).
		ReadTimeout:     cfg.Conns.HeaderTimeout,
		WriteTimeout:    60 * time.Second,
		IdleTimeout:     cfg.Conns.IdleTimeout,
		CloseOnShutdown: true,
		Logger:          fasthttpLogger{l: cfg.Logger},
	}
}
