// Command edge runs a Provenant edge: a proxy in front of one origin that
// verifies uploads with the same verifier module the browser runs (in
// wazero) or the same core compiled in, caches the origin's public
// objects, and limits verification per client IP. docs/edge.md describes
// deployment, trust and capacity.
//
//	go run ./edge --origin http://127.0.0.1:8080 --listen :8090
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/edge/internal/server"
	"github.com/provenant/provenant/edge/internal/verifier"
	"github.com/provenant/provenant/internal/adminguard"
	"github.com/provenant/provenant/internal/cli"
	"github.com/provenant/provenant/internal/clientip"
	"github.com/provenant/provenant/internal/connlimit"
	"github.com/provenant/provenant/internal/sharedlimit"
	"github.com/provenant/provenant/shared/limits"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "edge:", err)
		os.Exit(1)
	}
}

type options struct {
	origin, listen, adminListen, engine, wasmPath, c2paWasmPath, cacheDir, trusted, logLevel string
	adminHosts, adminToken                                                                   string
	instances, maxConns, maxConnsPerIP                                                       int
	wasmMemoryMiB, cacheMiB, verifyMemoryMiB, minBodyRate, maxBodyMiB                        int64
	deadline, maxStale, originTimeout                                                        time.Duration
	headerTimeout, idleTimeout, shutdownTimeout                                              time.Duration
	precompile, moduleDecode, exactProbe                                                     bool

	rateLimitRedis   string
	rateLimitTimeout time.Duration
}

// adminTokenEnv carries the admin token: a secret stays out of the
// process listing, so it has no flag.
const adminTokenEnv = "PROVENANT_EDGE_ADMIN_TOKEN"

func parseFlags(args []string, out io.Writer) (*options, error) {
	fs := flag.NewFlagSet("edge", flag.ContinueOnError)
	fs.SetOutput(out)
	o := &options{}
	fs.StringVar(&o.origin, "origin", "", "the origin's base URL, e.g. http://127.0.0.1:8080 (required)")
	fs.StringVar(&o.listen, "listen", ":8090", "public address")
	fs.StringVar(&o.adminListen, "admin-listen", "127.0.0.1:8091", "loopback admin address (POST /verifier/reload); empty disables it")
	fs.StringVar(&o.engine, "verifier", "wasm", "verification engine: wasm (verifier.wasm in wazero, sandboxed) or native (compiled in, faster)")
	fs.StringVar(&o.wasmPath, "verifier-wasm", "", "verifier.wasm to run; empty: the module the origin serves (its widget manifest)")
	fs.StringVar(&o.c2paWasmPath, "verifier-c2pa-wasm", "", "c2pa.wasm, the C2PA module, with --verifier-wasm (without it, files that carry a C2PA manifest are passed to the origin); ignored without --verifier-wasm: the origin's manifest names it")
	fs.StringVar(&o.cacheDir, "cache-dir", "", "directory for wazero's compiled code, so a restart does not recompile; empty: the user cache directory")
	fs.BoolVar(&o.precompile, "precompile", false, "compile the verifier module into --cache-dir, smoke-test it and exit (an image build step, so the first start does not compile)")
	fs.IntVar(&o.instances, "wasm-instances", runtime.GOMAXPROCS(0), "module instances alive at once (verifications in parallel)")
	fs.Int64Var(&o.wasmMemoryMiB, "wasm-memory-mib", 1024, "memory limit of one module instance, MiB")
	fs.BoolVar(&o.moduleDecode, "verifier-module-decode", false, "let the module decode every file in the sandbox, as the browser's analyze does; by default the edge decodes JPEGs natively with the module's own decoder (same facts, a fraction of the CPU; see docs/edge.md)")
	fs.BoolVar(&o.exactProbe, "exact-probe", true, "before analysing a verified file, ask the origin whether it is byte for byte the service's own signed output (an exact-only lookup by its SHA-256) and, if so, decide without analysing it, as the origin's verify does; false analyses every file (see docs/edge.md)")
	fs.DurationVar(&o.deadline, "verify-deadline", 0, "if > 0, a deadline for each call into the module (costs speed on every call, see docs/edge.md); 0 relies on the core's input limits")
	fs.StringVar(&o.trusted, "trusted-proxies", "", "comma-separated CIDRs of load balancers in front of this edge whose X-Forwarded-For is believed")
	fs.Int64Var(&o.cacheMiB, "cache-mib", 64, "memory for cached public objects, MiB")
	fs.Int64Var(&o.verifyMemoryMiB, "verify-memory-mib", server.DefaultVerifyMemory>>20, "memory for verify uploads held at once, MiB (at least one upload, 33 MiB); more verifies at once are refused with 503")
	fs.DurationVar(&o.maxStale, "max-stale", server.DefaultMaxStale, "longest a cached object is served stale (while revalidating, or while the origin is down)")
	fs.DurationVar(&o.originTimeout, "origin-timeout", server.DefaultOriginTimeout, "bound on one round trip to the origin")
	fs.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn, error")
	fs.StringVar(&o.adminHosts, "admin-hosts", "", "comma-separated Host names the admin listener accepts besides localhost and loopback addresses")
	fs.IntVar(&o.maxConns, "max-conns", connlimit.DefaultMaxConns, "connections open at once on the public listener (lowered to fit the open-files limit); 0: no cap")
	fs.IntVar(&o.maxConnsPerIP, "max-conns-per-ip", connlimit.DefaultMaxConnsPerIP, "connections open at once from one client address (IPv6: its /64; --trusted-proxies exempt); 0: no cap")
	fs.DurationVar(&o.headerTimeout, "header-timeout", connlimit.DefaultHeaderTimeout, "longest wait for a request's header")
	fs.DurationVar(&o.idleTimeout, "idle-timeout", connlimit.DefaultIdleTimeout, "longest wait for the next request on a kept-alive connection")
	fs.Int64Var(&o.minBodyRate, "min-body-rate", connlimit.DefaultMinBodyRate, "slowest request body served, bytes per second: a body's deadline is --header-timeout plus its declared size at this rate")
	fs.Int64Var(&o.maxBodyMiB, "max-body-mib", server.DefaultMaxBody>>20, "largest request body passed to the origin, MiB; a larger declared size gets 413 at once")
	fs.StringVar(&o.rateLimitRedis, "ratelimit-redis", "", "Redis or Valkey URL keeping the per-IP verify limit, one quota across every edge; empty: this edge counts alone. Password: PROVENANT_EDGE_RATELIMIT_REDIS_PASSWORD")
	fs.DurationVar(&o.rateLimitTimeout, "ratelimit-timeout", sharedlimit.DefaultTimeout, "longest wait for Redis on one rate-limit decision; past it this edge decides alone (logged)")
	fs.DurationVar(&o.shutdownTimeout, "shutdown-timeout", 30*time.Second, "longest wait for requests in flight on SIGTERM; then the remaining connections are closed")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	o.adminToken = os.Getenv(adminTokenEnv)
	if o.maxConns < 0 || o.maxConnsPerIP < 0 || o.minBodyRate <= 0 || o.maxBodyMiB <= 0 || o.headerTimeout <= 0 || o.idleTimeout <= 0 || o.shutdownTimeout <= 0 {
		return nil, errors.New("--max-conns and --max-conns-per-ip must be >= 0; --min-body-rate, --max-body-mib and the timeouts positive")
	}
	if o.origin == "" && (!o.precompile || o.wasmPath == "") {
		return nil, errors.New("--origin is required (--precompile with --verifier-wasm needs none)")
	}
	if o.precompile && o.engine != "wasm" {
		return nil, errors.New("--precompile compiles the wasm verifier; it does not go with --verifier native")
	}
	if o.engine != "wasm" && o.engine != "native" {
		return nil, fmt.Errorf("--verifier %q: want wasm or native", o.engine)
	}
	if o.instances < 1 {
		return nil, errors.New("--wasm-instances must be at least 1")
	}
	if o.wasmMemoryMiB < 16 || o.wasmMemoryMiB > 4096 {
		return nil, errors.New("--wasm-memory-mib must be between 16 and 4096")
	}
	if o.adminListen != "" {
		if err := server.CheckLoopback(o.adminListen, o.adminToken != ""); err != nil {
			return nil, err
		}
	}
	return o, nil
}

func run(args []string) error {
	o, err := parseFlags(args, os.Stderr)
	if err != nil {
		return err
	}
	log, err := cli.Logger(o.logLevel, os.Stderr)
	if err != nil {
		return err
	}
	proxies, err := clientip.ParseTrustedProxies(o.trusted)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// SIGHUP is taken from the start: its default action would end the
	// process, and an operator may send it at any time.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)

	cfg := server.Config{Origin: strings.TrimRight(o.origin, "/"), TrustedProxies: proxies, Limits: limits.Default(),
		CacheBytes: o.cacheMiB << 20, VerifyMemory: o.verifyMemoryMiB << 20, MaxStale: o.maxStale, OriginTimeout: o.originTimeout, Logger: log,
		AdminGuard: adminguard.New(strings.Split(o.adminHosts, ","), o.adminToken), Conns: connsConfig(o, log), NoExactProbe: !o.exactProbe}
	// started receives the WebAssembly engine once it is compiled and
	// smoke-tested (the edge listens before, see startWasm).
	started := make(chan *verifier.Wasm, 1)
	errc := make(chan error, 3)

	if o.rateLimitRedis != "" {
		st, err := sharedlimit.New(sharedlimit.Config{URL: o.rateLimitRedis, Password: os.Getenv("PROVENANT_EDGE_RATELIMIT_REDIS_PASSWORD"),
			Prefix: "provenant:rl:edge:", Timeout: o.rateLimitTimeout, Logger: log.With("component", "ratelimit")})
		if err != nil {
			return err
		}
		defer st.Close()
		cfg.Limiters = st.Factory()
	}
	switch o.engine {
	case "native":
		cfg.Engine = verifier.Native{Limits: cfg.Limits}
	case "wasm":
		load := func(ctx context.Context) ([]byte, error) {
			m, _, err := loadModules(ctx, o.wasmPath, "", cfg.Origin, false)
			return m, err
		}
		loadBoth := func(ctx context.Context) ([]byte, []byte, error) {
			return loadModules(ctx, o.wasmPath, o.c2paWasmPath, cfg.Origin, true)
		}
		wcfg := verifier.WasmConfig{CacheDir: cacheDir(o.cacheDir), Instances: o.instances,
			MemoryBytes: uint64(o.wasmMemoryMiB) << 20, RecycleBytes: 256 << 20, Deadline: o.deadline,
			ModuleDecode: o.moduleDecode, Logger: log}
		if o.precompile {
			return precompile(ctx, log, loadBoth, wcfg)
		}
		d := &verifier.Deferred{}
		cfg.Engine, cfg.Swapper, cfg.LoadModule = d, d, load
		log.Info("verifier module compiling; until it is ready, /ready answers 503 and verifies are passed to the origin", "cache_dir", wcfg.CacheDir)
		go startWasm(ctx, log, loadBoth, wcfg, d, started, errc)
	}
	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	go func() { errc <- srv.Serve(ln) }()
	log.Info("edge listening", "addr", ln.Addr().String(), "origin", cfg.Origin, "verifier", cfg.Engine.Name())
	var admin *fasthttp.Server
	if o.adminListen != "" {
		aln, err := net.Listen("tcp", o.adminListen)
		if err != nil {
			return err
		}
		admin = &fasthttp.Server{Handler: srv.AdminHandler(), Name: "provenant-edge-admin", ReadTimeout: 10 * time.Second, WriteTimeout: time.Minute,
			IdleTimeout: time.Minute, MaxRequestBodySize: 4 << 10}
		// The admin listener has a small budget of its own, and a failing
		// accept pauses instead of ending the process.
		budgeted := connlimit.NewListener(aln, connlimit.Config{MaxConns: 64, Logger: log.With("component", "admin-connections")})
		go func() { errc <- admin.Serve(budgeted) }()
		log.Info("edge admin listening", "addr", aln.Addr().String())
	}
	for {
		select {
		case <-hup:
			name, err := srv.Reload(ctx)
			if err != nil {
				log.Error("verifier reload on SIGHUP failed; the previous module stays", "err", err)
			} else {
				log.Info("verifier reloaded on SIGHUP", "verifier", name)
			}
		case w := <-started:
			defer w.Close(context.Background())
		case err := <-errc:
			return err
		case <-ctx.Done():
			log.Info("edge shutting down")
			sctx, cancel := context.WithTimeout(context.Background(), o.shutdownTimeout)
			defer cancel()
			if admin != nil {
				_ = admin.ShutdownWithContext(sctx)
			}
			return srv.Shutdown(sctx)
		}
	}
}

// cacheDir is --cache-dir, or by default a directory under the user cache
// directory ("" when there is none: compiled code is then kept in memory
// only).
func cacheDir(flag string) string {
	if flag != "" {
		return flag
	}
	if base, err := os.UserCacheDir(); err == nil {
		return filepath.Join(base, "provenant-edge", "wazero")
	}
	return ""
}

// startWasm loads, compiles and smoke-tests the verifier module, then
// makes it d's engine and sends it on started; a failure goes to errc
// (the edge exits, as it would have before listening). The edge listens
// meanwhile: compiling without a cache takes tens of seconds on a small
// machine, and an operator must see at once that the edge is alive.
func startWasm(ctx context.Context, log *slog.Logger, load func(context.Context) ([]byte, []byte, error), wcfg verifier.WasmConfig,
	d *verifier.Deferred, started chan<- *verifier.Wasm, errc chan<- error) {
	t0 := time.Now()
	mod, c2pa, err := load(ctx)
	if err != nil {
		errc <- err
		return
	}
	wcfg.Module, wcfg.C2PAModule = mod, c2pa
	w, err := verifier.NewWasm(ctx, wcfg)
	if err != nil {
		errc <- err
		return
	}
	d.Set(w)
	started <- w
	log.Info("verifier ready", "verifier", w.Name(), "start_ms", time.Since(t0).Milliseconds())
}

// precompile is --precompile: the module compiled into the cache and
// smoke-tested, nothing served.
func precompile(ctx context.Context, log *slog.Logger, load func(context.Context) ([]byte, []byte, error), wcfg verifier.WasmConfig) error {
	if wcfg.CacheDir == "" {
		return errors.New("--precompile needs --cache-dir (there is no user cache directory)")
	}
	log.Info("verifier module compiling into the cache", "cache_dir", wcfg.CacheDir)
	mod, c2pa, err := load(ctx)
	if err != nil {
		return err
	}
	wcfg.Module, wcfg.C2PAModule = mod, c2pa
	w, err := verifier.NewWasm(ctx, wcfg)
	if err != nil {
		return err
	}
	if err := w.WaitC2PA(ctx); err != nil {
		w.Close(ctx)
		return err
	}
	log.Info("verifier module precompiled", "verifier", w.Name())
	return w.Close(ctx)
}

// connsConfig is the public listener's budget from the flags
// (connlimit.FromFlags: the cap fits the open-files limit).
func connsConfig(o *options, log *slog.Logger) server.Conns {
	b := connlimit.FromFlags(connlimit.Budget{MaxConns: o.maxConns, MaxConnsPerIP: o.maxConnsPerIP, HeaderTimeout: o.headerTimeout,
		IdleTimeout: o.idleTimeout, MinBodyRate: o.minBodyRate}, log)
	return server.Conns{Budget: b, MaxBody: o.maxBodyMiB << 20}
}

// maxModuleBytes bounds the module fetched from the origin.
const maxModuleBytes = 64 << 20

// loadModules reads verifier.wasm from path (and, with withC2PA, the C2PA
// module from c2paPath when given), or, when path is empty, the modules
// the origin's widget manifest names, each checked against the manifest's
// SHA-256. The C2PA module is nil when not given or not served.
func loadModules(ctx context.Context, path, c2paPath, origin string, withC2PA bool) (mod, c2pa []byte, err error) {
	if path != "" {
		if mod, err = os.ReadFile(path); err != nil || !withC2PA || c2paPath == "" {
			return mod, nil, err
		}
		c2pa, err = os.ReadFile(c2paPath)
		return mod, c2pa, err
	}
	get := func(u string) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept-Encoding", "identity")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxModuleBytes))
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("GET %s: status %d: %.200s", u, resp.StatusCode, b)
		}
		return b, nil
	}
	b, err := get(origin + "/api/v1/widget/manifest.json")
	if err != nil {
		return nil, nil, fmt.Errorf("verifier module from the origin (or give --verifier-wasm): %w", err)
	}
	var m struct {
		WASM       string `json:"wasm"`
		SHA256     string `json:"sha256"`
		C2PAWASM   string `json:"c2pa_wasm"`
		C2PASHA256 string `json:"c2pa_sha256"`
	}
	if err := json.Unmarshal(b, &m); err != nil || !strings.HasPrefix(m.WASM, "/") {
		return nil, nil, fmt.Errorf("the origin's widget manifest is not one: %.200s", b)
	}
	fetch := func(path, sha string) ([]byte, error) {
		mod, err := get(origin + path)
		if err != nil {
			return nil, err
		}
		if sum := sha256.Sum256(mod); hex.EncodeToString(sum[:]) != sha {
			return nil, fmt.Errorf("the module %s the origin served does not match its manifest's sha256", path)
		}
		return mod, nil
	}
	if mod, err = fetch(m.WASM, m.SHA256); err != nil || !withC2PA || !strings.HasPrefix(m.C2PAWASM, "/") {
		return mod, nil, err
	}
	c2pa, err = fetch(m.C2PAWASM, m.C2PASHA256)
	return mod, c2pa, err
}
