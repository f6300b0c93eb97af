// Command provenant is the command line client of a Provenant origin:
// sign files and folders, verify files (by upload, or locally so that the
// file never leaves the machine), manage keys, records and webhooks. It is
// built on the Go SDK (package client). See docs/cli.md.
//
// Exit codes (stable, for scripts):
//
//	0  success; for verify, the file is authentic
//	1  verify: the file is not authentic
//	2  usage error (unknown command or flag, missing argument, no credentials)
//	3  the origin answered with an error (problem+json; see --json)
//	4  network error: no answer from the origin after the retries
//	5  local error: a file could not be read or written, bad config file
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr, getenv: os.Getenv})
	stop()
	os.Exit(code)
}

// stdio is the process environment a run sees; tests pass their own.
type stdio struct {
	in       io.Reader
	out, err io.Writer
	getenv   func(string) string
}
