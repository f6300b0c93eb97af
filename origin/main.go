// Command origin runs the Provenant origin server.
//
//	go run ./origin [--listen 127.0.0.1:8080] [--data-dir ./data]
//
// Environment: PROVENANT_LISTEN, PROVENANT_DATA_DIR (used when the flag is
// not given), PROVENANT_MASTER_KEY (64 hex digits or base64 of 32 bytes;
// default: <data-dir>/secrets/master.key, created on first start),
// PROVENANT_SMTP_ADDR, PROVENANT_SMTP_FROM, PROVENANT_SMTP_USERNAME,
// PROVENANT_SMTP_PASSWORD (SMTP mail instead of the outbox directory),
// PROVENANT_RESET_URL (link base in reset mails), PROVENANT_LOG_LEVEL
// (debug, info, warn, error), PROVENANT_WEBHOOK_* (webhook delivery; see
// server.WebhooksConfigFromEnv and docs/webhooks.md).
//
// Anchoring: by default Merkle roots go to an embedded go-ethereum dev chain
// persisted under <data-dir>/chain. --eth-rpc URL --eth-key FILE
// --eth-network NAME [--eth-confirmations K] send them to any Ethereum
// JSON-RPC node instead (env PROVENANT_ETH_RPC, PROVENANT_ETH_KEY,
// PROVENANT_ETH_NETWORK, PROVENANT_ETH_CONFIRMATIONS). --batch-size and
// --batch-interval close batches (defaults 1000 records / 60s).
//
// Demo: --demo (env PROVENANT_DEMO=1; `make run` passes it) serves GET
// /demo, the widget on sample pictures; on an empty data dir it first
// creates the demo account "Provenant Demo (sample data)" and signs them.
//
// Memory: --decode-memory SIZE (env PROVENANT_DECODE_MEMORY; default 1GiB;
// bytes, or a number with KiB, MiB, GiB, KB, MB or GB) is the memory all
// image decodes in flight may use together; requests wait for room up to
// 5 s, then get 503 decode_capacity. Unless GOMEMLIMIT is set, the Go
// runtime's soft memory limit is set to that budget plus 512 MiB, so that
// garbage from finished decodes is collected before the heap grows past it
// (see "Decode memory" in docs/api.md).
//
// Load tests only: PROVENANT_LIMIT_SIGN and PROVENANT_LIMIT_VERIFY (requests
// per minute, overriding the spec's 100 per API key and 60 per IP).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/provenant/provenant/origin/internal/anchor/ethchain"
	"github.com/provenant/provenant/origin/internal/httpapi"
	"github.com/provenant/provenant/origin/internal/mail"
	"github.com/provenant/provenant/origin/internal/ratelimit"
	"github.com/provenant/provenant/origin/internal/server"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "origin:", err)
		os.Exit(1)
	}
}

func run() error {
	fs := flag.NewFlagSet("origin", flag.ExitOnError)
	listen := fs.String("listen", envOr("PROVENANT_LISTEN", server.DefaultListen), "address to listen on (env PROVENANT_LISTEN)")
	dataDir := fs.String("data-dir", envOr("PROVENANT_DATA_DIR", server.DefaultDataDir), "data directory (env PROVENANT_DATA_DIR)")
	logLevel := fs.String("log-level", envOr("PROVENANT_LOG_LEVEL", "info"), "log level: debug, info, warn, error")
	// Numeric defaults from the environment; a malformed value is an error,
	// not a silent fallback.
	var envErrs []error
	envUint := func(name string) uint64 {
		v := os.Getenv(name)
		if v == "" {
			return 0
		}
		n, err := strconv.ParseUint(v, 10, 31)
		if err != nil {
			envErrs = append(envErrs, fmt.Errorf("%s: %w", name, err))
		}
		return n
	}
	envDuration := func(name string) time.Duration {
		v := os.Getenv(name)
		if v == "" {
			return 0
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			envErrs = append(envErrs, fmt.Errorf("%s: %w", name, err))
		}
		return d
	}
	ethRPC := fs.String("eth-rpc", os.Getenv("PROVENANT_ETH_RPC"), "Ethereum JSON-RPC URL; empty: the embedded dev chain (env PROVENANT_ETH_RPC)")
	ethKey := fs.String("eth-key", os.Getenv("PROVENANT_ETH_KEY"), "file with the funded sender's hex private key, with --eth-rpc (env PROVENANT_ETH_KEY)")
	ethNetwork := fs.String("eth-network", os.Getenv("PROVENANT_ETH_NETWORK"), "network name carried by proofs, with --eth-rpc (env PROVENANT_ETH_NETWORK)")
	ethConf := fs.Uint64("eth-confirmations", envUint("PROVENANT_ETH_CONFIRMATIONS"), "confirmations before a batch is anchored; 0: 1 embedded, 12 over RPC")
	batchSize := fs.Int("batch-size", int(envUint("PROVENANT_BATCH_SIZE")), "records per Merkle batch; 0: 1000")
	batchInterval := fs.Duration("batch-interval", envDuration("PROVENANT_BATCH_INTERVAL"), "longest wait before a batch closes; 0: 60s")
	demo := fs.Bool("demo", os.Getenv("PROVENANT_DEMO") == "1", "serve GET /demo; on an empty data dir first create the labelled demo account and pictures (env PROVENANT_DEMO=1; make run sets it)")
	decodeMemory := fs.String("decode-memory", envOr("PROVENANT_DECODE_MEMORY", "1GiB"), "memory all image decodes in flight may use together, e.g. 512MiB (env PROVENANT_DECODE_MEMORY)")
	_ = fs.Parse(os.Args[1:])
	if err := errors.Join(envErrs...); err != nil {
		return err
	}
	decodeBytes, err := parseSize(*decodeMemory)
	if err != nil || decodeBytes <= 0 {
		return fmt.Errorf("decode memory %q: must be a positive size such as 512MiB or 2GiB", *decodeMemory)
	}
	if os.Getenv("GOMEMLIMIT") == "" && decodeBytes <= math.MaxInt64-memoryHeadroom {
		debug.SetMemoryLimit(decodeBytes + memoryHeadroom)
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("log level: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	cfg := server.Config{DataDir: *dataDir, Logger: logger, ResetURL: os.Getenv("PROVENANT_RESET_URL"), DecodeMemory: decodeBytes, Demo: *demo}
	cfg.Anchor.Chain = ethchain.Config{RPCURL: *ethRPC, KeyFile: *ethKey, Network: *ethNetwork, Confirmations: *ethConf}
	cfg.Anchor.BatchSize, cfg.Anchor.BatchInterval = *batchSize, *batchInterval
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
	if addr := os.Getenv("PROVENANT_SMTP_ADDR"); addr != "" {
		cfg.Mailer = &mail.SMTP{Addr: addr, From: envOr("PROVENANT_SMTP_FROM", "noreply@localhost"),
			Username: os.Getenv("PROVENANT_SMTP_USERNAME"), Password: os.Getenv("PROVENANT_SMTP_PASSWORD")}
	}

	for _, l := range []struct {
		env string
		dst *ratelimit.Policy
		def ratelimit.Policy
	}{{"PROVENANT_LIMIT_SIGN", &cfg.Limits.Sign, httpapi.DefaultLimits().Sign}, {"PROVENANT_LIMIT_VERIFY", &cfg.Limits.Verify, httpapi.DefaultLimits().Verify}} {
		if v := os.Getenv(l.env); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return fmt.Errorf("%s must be a positive integer", l.env)
			}
			*l.dst = l.def
			l.dst.Quota = n
		}
	}

	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
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
		_ = srv.Shutdown(context.Background())
		return err
	}
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
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
