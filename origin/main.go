// Command origin runs the Provenant origin server, and backs up and
// restores its data.
//
//	origin [serve] [flags]                 run the server
//	origin backup -out FILE [flags]        online backup through a running server's admin listener
//	origin restore -in FILE -data-dir DIR  restore a backup into an empty data directory
//
// Every flag has an environment twin, PROVENANT_<FLAG> for the server
// (e.g. --data-dir and PROVENANT_DATA_DIR) and PROVENANT_BACKUP_<FLAG> /
// PROVENANT_RESTORE_<FLAG> for the subcommands; a flag on the command line
// wins. `origin --help` lists them with their defaults; docs/operations.md
// explains each. Secrets and structured settings are environment-only so
// that they never appear in a process listing: PROVENANT_MASTER_KEY (64
// hex digits or base64 of 32 bytes; default: <data-dir>/secrets/master.key,
// created on first start), PROVENANT_SMTP_PASSWORD, and PROVENANT_WEBHOOK_*
// (see server.WebhooksConfigFromEnv and docs/webhooks.md).
//
// Demo: --demo (`make run` sets it) serves GET /demo, the widget on sample
// pictures; on an empty data dir it first creates the demo account
// "Provenant Demo (sample data)" and signs them.
//
// Memory: --decode-memory is the memory all image decodes in flight may use
// together; unless GOMEMLIMIT is set, the Go runtime's soft memory limit
// is set to that budget plus 512 MiB, so that garbage from finished
// decodes is collected before the heap grows past it (see "Decode memory"
// in docs/api.md). --video-memory is the address space the ffmpeg and
// ffprobe processes may reserve together (docs/video.md, "Budgets").
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/big"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/provenant/provenant/internal/adminguard"
	"github.com/provenant/provenant/internal/cli"
	"github.com/provenant/provenant/internal/clientip"
	"github.com/provenant/provenant/internal/connlimit"
	"github.com/provenant/provenant/internal/ratelimit"
	"github.com/provenant/provenant/internal/sharedlimit"
	"github.com/provenant/provenant/origin/internal/anchor"
	"github.com/provenant/provenant/origin/internal/anchor/ethchain"
	"github.com/provenant/provenant/origin/internal/blobs"
	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/origin/internal/mail"
	"github.com/provenant/provenant/origin/internal/server"
)

func main() {
	if err := run(); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "origin:", err)
		os.Exit(2)
	}
}

// run dispatches os.Args to a subcommand; no subcommand means serve.
func run() error {
	args := os.Args[1:]
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args)
	case "backup":
		return backupCmd(args, lookupEnv, os.Stderr)
	case "restore":
		return restoreCmd(args, lookupEnv, os.Stderr)
	default:
		return fmt.Errorf("unknown command %q: want serve, backup or restore (see --help)", cmd)
	}
}

// envOnlyHelp lists, for --help, the settings that have no flag: secrets
// (a flag would show them in process listings) and structured ones.
const envOnlyHelp = `
Environment only:
  PROVENANT_MASTER_KEY     32-byte key sealing signing keys and webhook secrets, 64 hex digits or base64
                           (default: <data-dir>/secrets/master.key, created on first start)
  PROVENANT_SMTP_PASSWORD  SMTP password, with --smtp-addr
  PROVENANT_WEBHOOK_*      webhook delivery: ALLOW_CIDRS, ALLOW_HTTP, PORTS, SCHEDULE, TIMEOUT, WORKERS, PER_ENDPOINT
  PROVENANT_S3_ACCESS_KEY, PROVENANT_S3_SECRET_KEY  credentials of --s3-endpoint
  PROVENANT_RATELIMIT_REDIS_PASSWORD                password of --ratelimit-redis
  GOMEMLIMIT               Go soft memory limit (default: --decode-memory + 512MiB)
See docs/operations.md.
`

// serveOptions are the server's flags, parsed.
type serveOptions struct {
	listen, dataDir, logLevel, adminListen, trustedProxies string
	storeKind, postgresURL, blobsDir                       string
	anchorLeaseTTL, chainReadTimeout                       time.Duration
	chainRPCListen                                         string
	gcInterval                                             time.Duration
	ethRPC, ethKey, ethNetwork                             string
	ethConfirmations, batchSize                            uint64
	ethChainID                                             uint64
	ethNetworkName, ethExplorerTxURL, ethMaxFeeGwei        string
	ethPublic                                              bool
	batchInterval                                          time.Duration
	decodeMemory, videoMemory, minFreeDisk                 string
	videoWallTime                                          time.Duration
	geometricIndex                                         bool
	smtpAddr, smtpFrom, smtpUsername, resetURL             string
	limitSign, limitVerify                                 uint64
	demo                                                   bool
	maxConns, maxConnsPerIP                                uint64
	headerTimeout, idleTimeout, shutdownTimeout            time.Duration
	minBodyRate, adminHosts                                string
	s3Endpoint, s3Bucket, s3Prefix, s3Region               string
	rateLimitRedis                                         string
	rateLimitTimeout                                       time.Duration
}

// serveFlags declares the server's flags. It is separate from serve so
// that a test can check every flag against its twin and the docs.
func serveFlags(getenv func(string) (string, bool), out io.Writer) (*flags, *serveOptions) {
	f := newFlags("origin", "PROVENANT_", "origin [serve] [flags]   (also: origin backup --help, origin restore --help)", getenv, out)
	o := &serveOptions{}
	f.trailer = envOnlyHelp
	f.str(&o.listen, "listen", server.DefaultListen, "public API address")
	f.str(&o.dataDir, "data-dir", server.DefaultDataDir, "data directory: database, embedded chain, secrets, mail outbox")
	f.str(&o.storeKind, "store", "badger", "where the origin's state lives: badger (embedded, under --data-dir) or postgres (--postgres-url; several origins may share it)")
	f.str(&o.postgresURL, "postgres-url", "", "PostgreSQL connection URL, with --store postgres; keep the password out of it (PGPASSWORD or a .pgpass file)")
	f.str(&o.blobsDir, "blobs-dir", "", "with --store postgres: directory of the signed files, shared by every origin of the installation; empty: <data-dir>/blobs")
	f.str(&o.s3Endpoint, "s3-endpoint", "", "with --store postgres: S3 API URL (http(s)://host[:port]) of the object store keeping the signed files instead of --blobs-dir; credentials: PROVENANT_S3_ACCESS_KEY and PROVENANT_S3_SECRET_KEY, else the AWS_* variables or the instance role")
	f.str(&o.s3Bucket, "s3-bucket", "", "bucket of the signed files, with --s3-endpoint; it must exist")
	f.str(&o.s3Prefix, "s3-prefix", "", "prefix of the signed files' object keys in --s3-bucket, e.g. provenant/")
	f.str(&o.s3Region, "s3-region", "", "region of --s3-bucket; empty: asked of the store")
	f.str(&o.rateLimitRedis, "ratelimit-redis", "", "Redis or Valkey URL (redis://host:6379/0, rediss:// for TLS) keeping the rate limits, one quota across all origins; empty: each origin counts alone. Password: PROVENANT_RATELIMIT_REDIS_PASSWORD")
	f.dur(&o.rateLimitTimeout, "ratelimit-timeout", sharedlimit.DefaultTimeout, "longest wait for Redis on one rate-limit decision; past it this origin decides alone (logged, counted)")
	f.dur(&o.anchorLeaseTTL, "anchor-lease-ttl", anchor.DefaultLeaseTTL, "with --store postgres: the anchoring leader's lease; a dead leader is replaced within it")
	f.dur(&o.chainReadTimeout, "chain-read-timeout", anchor.DefaultReadTimeout, "longest a request waits for the chain reads behind one record's anchoring state; past it the state is unavailable")
	f.str(&o.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	f.str(&o.adminListen, "admin-listen", server.DefaultAdminListen, "admin listener (GET /metrics, /debug/pprof/, GET /backup); empty disables it. Keep it on loopback or a private network")
	f.str(&o.adminHosts, "admin-hosts", "", "comma-separated Host names the admin listener accepts besides localhost and loopback addresses")
	f.str(&o.trustedProxies, "trusted-proxies", "", "comma-separated CIDRs of reverse proxies whose X-Forwarded-For names the client; empty trusts none")
	f.dur(&o.gcInterval, "gc-interval", server.DefaultGCInterval, "how often Badger value-log GC runs; 0 disables it")
	f.str(&o.chainRPCListen, "chain-rpc-listen", server.DefaultChainRPCListen, "read-only Ethereum JSON-RPC of the embedded chain (chain id, transactions, receipts, blocks); empty disables it; unused with --eth-rpc")
	f.str(&o.ethRPC, "eth-rpc", "", "Ethereum JSON-RPC URL; empty: the embedded dev chain under <data-dir>/chain")
	f.str(&o.ethKey, "eth-key", "", "file with the funded sender's hex private key, with --eth-rpc (or the key itself in PROVENANT_ETH_PRIVATE_KEY)")
	f.str(&o.ethNetwork, "eth-network", "", "with --eth-rpc: mainnet, sepolia, base, base-sepolia, optimism, op-sepolia, or custom; the node's eth_chainId is checked at start")
	f.uint(&o.ethChainID, "eth-chain-id", 0, "chain id the node must answer, with --eth-network custom")
	f.str(&o.ethNetworkName, "eth-network-name", "", "network name proofs carry, with --eth-network custom")
	f.boolean(&o.ethPublic, "eth-public", false, "with --eth-network custom: the chain is public (anyone can read it from independent nodes)")
	f.str(&o.ethExplorerTxURL, "eth-explorer-tx-url", "", "block explorer transaction page with {tx} for the hash, for a public chain; presets have their own")
	f.str(&o.ethMaxFeeGwei, "eth-max-fee-gwei", "", "fee ceiling in gwei per gas; empty: the preset's, else 200")
	f.uint(&o.ethConfirmations, "eth-confirmations", 0, "confirmations before a batch is anchored; 0: 1 embedded, the preset's, 12 for custom")
	f.uint(&o.batchSize, "batch-size", uint64(anchor.DefaultBatchSize), "records per Merkle batch")
	f.dur(&o.batchInterval, "batch-interval", anchor.DefaultBatchInterval, "longest wait before a batch closes")
	f.str(&o.decodeMemory, "decode-memory", "1GiB", "memory all image decodes in flight may use together, e.g. 512MiB")
	f.dur(&o.videoWallTime, "video-wall-time", 10*time.Minute, "longest run of one ffmpeg or ffprobe process for a video request (each also has 300 s of CPU time and a deadline of 20 s plus 3×, signing 8×, the video's duration)")
	f.str(&o.minFreeDisk, "min-free-disk", "256MiB", "free space the database's file system must keep for a write to go ahead; below it writes answer 507 and /ready is 503 (0: no check)")
	f.str(&o.videoMemory, "video-memory", "2560MiB", "address space all ffmpeg/ffprobe processes may reserve together (each reserves its own limit: probe 512MiB, decode 768MiB, encode 1GiB)")
	f.str(&o.smtpAddr, "smtp-addr", "", "SMTP server host:port for reset mails; empty: files in <data-dir>/outbox")
	f.str(&o.smtpFrom, "smtp-from", "noreply@localhost", "sender address of mails, with --smtp-addr")
	f.str(&o.smtpUsername, "smtp-username", "", "SMTP user, with --smtp-addr (password: PROVENANT_SMTP_PASSWORD only)")
	f.str(&o.resetURL, "reset-url", "", "link base in password reset mails; empty: the bare token")
	f.uint(&o.limitSign, "limit-sign", 0, "sign requests per minute per API key on this origin (load tests, or N origins sharing one quota); 0: the documented 100")
	f.uint(&o.limitVerify, "limit-verify", 0, "verify requests per minute per IP on this origin (load tests, or N origins sharing one quota); 0: the documented 60")
	f.uint(&o.maxConns, "max-conns", connlimit.DefaultMaxConns, "connections open at once on the public listener; at the cap the longest-waiting connection without a request in progress is closed, else the newcomer gets 503; 0: no cap (lowered to fit the open-files limit)")
	f.uint(&o.maxConnsPerIP, "max-conns-per-ip", connlimit.DefaultMaxConnsPerIP, "connections open at once from one client address (IPv6: its /64; --trusted-proxies exempt); over it 429; 0: no cap")
	f.dur(&o.headerTimeout, "header-timeout", connlimit.DefaultHeaderTimeout, "longest wait for a request's header")
	f.dur(&o.idleTimeout, "idle-timeout", connlimit.DefaultIdleTimeout, "longest wait for the next request on a kept-alive connection")
	f.str(&o.minBodyRate, "min-body-rate", "32KiB", "slowest request body served, per second: a body's deadline is --header-timeout plus its declared size at this rate")
	f.dur(&o.shutdownTimeout, "shutdown-timeout", 15*time.Second, "longest wait for requests in flight on SIGTERM; then the remaining connections are closed")
	f.boolean(&o.geometricIndex, "geometric-index", true, "hold the geometric near-duplicate index (look-before-mark at sign and register); false makes a verify-only origin that answers signs and registers of pictures 503 verify_only_origin and saves its memory")
	f.boolean(&o.demo, "demo", false, "serve GET /demo; on an empty data dir first create the labelled demo account and pictures (make run sets it)")
	return f, o
}

// serve runs the server until SIGINT or SIGTERM.
func serve(args []string) error {
	f, o := serveFlags(lookupEnv, os.Stderr)
	if err := f.parse(args); err != nil {
		return err
	}
	decodeBytes, err := parseSize(o.decodeMemory)
	if err != nil || decodeBytes <= 0 {
		return fmt.Errorf("decode memory %q: must be a positive size such as 512MiB or 2GiB", o.decodeMemory)
	}
	if os.Getenv("GOMEMLIMIT") == "" && decodeBytes <= math.MaxInt64-memoryHeadroom {
		debug.SetMemoryLimit(decodeBytes + memoryHeadroom)
	}
	logger, err := cli.Logger(o.logLevel, os.Stderr)
	if err != nil {
		return err
	}
	proxies, err := clientip.ParseTrustedProxies(o.trustedProxies)
	if err != nil {
		return err
	}
	if o.batchSize > uint64(anchor.MaxBatchSize) {
		return fmt.Errorf("batch size %d: at most %d", o.batchSize, anchor.MaxBatchSize)
	}

	if err := checkStore(o.storeKind, o.postgresURL); err != nil {
		return err
	}
	conns, err := connsConfig(o, logger)
	if err != nil {
		return err
	}

	videoBytes, err := parseSize(o.videoMemory)
	if err != nil || videoBytes <= 0 {
		return fmt.Errorf("--video-memory %q: want a size such as 3GiB", o.videoMemory)
	}
	minFree, err := parseSize(o.minFreeDisk)
	if err != nil || minFree < 0 {
		return fmt.Errorf("--min-free-disk %q: want a size such as 256MiB", o.minFreeDisk)
	}
	if minFree == 0 {
		minFree = -1 // 0 on the command line disables; in Config it means the default
	}
	cfg := server.Config{DataDir: o.dataDir, MinFreeDisk: minFree, Logger: logger, ResetURL: o.resetURL, DecodeMemory: decodeBytes, VideoWallTime: o.videoWallTime, VideoMemory: videoBytes,
		PostgresURL: o.postgresURL, BlobsDir: o.blobsDir, AdminAddr: o.adminListen, ChainRPCAddr: o.chainRPCListen, TrustedProxies: proxies, GCInterval: o.gcInterval, Demo: o.demo,
		Conns: conns, AdminHosts: strings.Split(o.adminHosts, ","), AdminToken: os.Getenv("PROVENANT_ADMIN_TOKEN")}
	cfg.NearIndex.WithoutGeometric = !o.geometricIndex
	if o.adminListen != "" && cfg.AdminToken == "" && !adminguard.OnLoopback(o.adminListen) {
		logger.Warn("the admin listener is not on loopback and has no PROVENANT_ADMIN_TOKEN: anyone who reaches it can read metrics and download the backup")
	}
	cfg.MultiHost = server.MultiHost{RateLimitRedisURL: o.rateLimitRedis, RateLimitRedisPassword: os.Getenv("PROVENANT_RATELIMIT_REDIS_PASSWORD"), RateLimitTimeout: o.rateLimitTimeout}
	if o.s3Endpoint != "" {
		cfg.S3 = blobs.S3Config{Endpoint: o.s3Endpoint, Bucket: o.s3Bucket, Prefix: o.s3Prefix, Region: o.s3Region,
			AccessKey: os.Getenv("PROVENANT_S3_ACCESS_KEY"), SecretKey: os.Getenv("PROVENANT_S3_SECRET_KEY")}
	}
	cfg.JPEG = jpegCodec()
	logger.Info("jpeg codec for signing", "codec", cfg.JPEG.Name())
	if o.gcInterval <= 0 {
		cfg.GCInterval = -1 // 0 on the command line disables; in Config it means the default
	}
	cfg.Anchor.Chain = ethchain.Config{RPCURL: o.ethRPC, KeyFile: o.ethKey, KeyHex: os.Getenv("PROVENANT_ETH_PRIVATE_KEY"), Network: o.ethNetwork,
		ChainID: o.ethChainID, NetworkName: o.ethNetworkName, Public: o.ethPublic, ExplorerTxURL: o.ethExplorerTxURL, Confirmations: o.ethConfirmations}
	if o.ethMaxFeeGwei != "" {
		g, ok := new(big.Float).SetString(o.ethMaxFeeGwei)
		if !ok || g.Sign() <= 0 {
			return fmt.Errorf("eth max fee %q: must be a positive number of gwei such as 30 or 0.5", o.ethMaxFeeGwei)
		}
		cfg.Anchor.Chain.MaxFeeCap, _ = g.Mul(g, big.NewFloat(1e9)).Int(nil)
	}
	cfg.Anchor.BatchSize, cfg.Anchor.BatchInterval = int(o.batchSize), o.batchInterval
	if o.anchorLeaseTTL <= 0 {
		return fmt.Errorf("anchor lease TTL %v: must be positive", o.anchorLeaseTTL)
	}
	cfg.Anchor.LeaseTTL = o.anchorLeaseTTL
	if o.chainReadTimeout <= 0 {
		return fmt.Errorf("chain read timeout %v: must be positive", o.chainReadTimeout)
	}
	cfg.Anchor.ReadTimeout = o.chainReadTimeout
	wh, err := server.WebhooksConfigFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	cfg.Webhooks = wh
	if v := os.Getenv("PROVENANT_MASTER_KEY"); v != "" {
		mk, err := server.ParseMasterKey(v)
		if err != nil {
			return err
		}
		cfg.MasterKey = mk
	}
	if o.smtpAddr != "" {
		cfg.Mailer = &mail.SMTP{Addr: o.smtpAddr, From: o.smtpFrom, Username: o.smtpUsername, Password: os.Getenv("PROVENANT_SMTP_PASSWORD")}
	}
	for _, l := range []struct {
		n   uint64
		dst *ratelimit.Policy
		def ratelimit.Policy
	}{{o.limitSign, &cfg.Limits.Sign, httpapi.DefaultLimits().Sign}, {o.limitVerify, &cfg.Limits.Verify, httpapi.DefaultLimits().Verify}} {
		if l.n > 0 {
			*l.dst = l.def
			l.dst.Quota = int(l.n)
		}
	}

	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		_ = srv.Shutdown(context.Background())
		return fmt.Errorf("listen: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()

	select {
	case <-ctx.Done():
		logger.Info("shutting down")
	case err := <-serveErr:
		sctx, cancel := context.WithTimeout(context.Background(), o.shutdownTimeout)
		defer cancel()
		_ = srv.Shutdown(sctx)
		return err
	}
	sctx, cancel := context.WithTimeout(context.Background(), o.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// connsConfig turns the connection flags into the server's budget: the
// open-files limit is raised as far as the system allows and the total
// cap lowered to fit in it, so that the cap, not accept, is what runs out.
func connsConfig(o *serveOptions, logger *slog.Logger) (server.ConnsConfig, error) {
	rate, err := parseSize(o.minBodyRate)
	if err != nil || rate <= 0 {
		return server.ConnsConfig{}, fmt.Errorf("min body rate %q: must be a positive size such as 32KiB", o.minBodyRate)
	}
	if o.headerTimeout <= 0 || o.idleTimeout <= 0 || o.shutdownTimeout <= 0 {
		return server.ConnsConfig{}, errors.New("--header-timeout, --idle-timeout and --shutdown-timeout must be positive")
	}
	return connlimit.FromFlags(server.ConnsConfig{MaxConns: int(o.maxConns), MaxConnsPerIP: int(o.maxConnsPerIP),
		HeaderTimeout: o.headerTimeout, IdleTimeout: o.idleTimeout, MinBodyRate: rate}, logger), nil
}

// checkStore validates --store and --postgres-url together.
func checkStore(kind, url string) error {
	switch {
	case kind == "postgres" && url == "":
		return errors.New("--store postgres needs --postgres-url")
	case kind == "badger" && url != "":
		return errors.New("--postgres-url is used with --store postgres only")
	case kind != "postgres" && kind != "badger":
		return fmt.Errorf("store %q: want badger or postgres", kind)
	}
	return nil
}

// memoryHeadroom is what the process is allowed besides the decode budget
// under the soft memory limit: the database, uploads being read, responses.
const memoryHeadroom = 512 << 20

// parseSize reads a byte count: digits, optionally followed by a unit
// (B, KiB, MiB, GiB, TiB, or the decimal KB, MB, GB, TB; case-insensitive).
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := len(s) - len(strings.TrimLeft(s, "0123456789"))
	if i == 0 {
		return 0, fmt.Errorf("size %q has no number", s)
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, err
	}
	mult := map[string]int64{"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
		"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12}
	m, ok := mult[strings.ToLower(strings.TrimSpace(s[i:]))]
	if !ok {
		return 0, fmt.Errorf("size %q: unknown unit", s)
	}
	if n > math.MaxInt64/m {
		return 0, fmt.Errorf("size %q overflows", s)
	}
	return n * m, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
