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
// (debug, info, warn, error), PROVENANT_LIMIT_SIGN and
// PROVENANT_LIMIT_VERIFY (requests per minute, overriding the spec's 100
// per API key and 60 per IP; for load tests only).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/provenant/provenant/origin/httpapi"
	"github.com/provenant/provenant/origin/mail"
	"github.com/provenant/provenant/origin/ratelimit"
	"github.com/provenant/provenant/origin/server"
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
	_ = fs.Parse(os.Args[1:])

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("log level: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	cfg := server.Config{DataDir: *dataDir, Logger: logger, ResetURL: os.Getenv("PROVENANT_RESET_URL")}
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

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
