package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/provenant/provenant/origin/internal/server"
)

type backupOptions struct {
	out, adminURL string
	timeout       time.Duration
}

func backupFlags(getenv func(string) (string, bool), out io.Writer) (*flags, *backupOptions) {
	f := newFlags("origin backup", "PROVENANT_BACKUP_", "origin backup -out FILE [--admin-url URL]", getenv, out)
	o := &backupOptions{}
	f.str(&o.out, "out", "", "archive to write (required); it holds the secrets of the data directory: keep it like them")
	f.str(&o.adminURL, "admin-url", "http://"+server.DefaultAdminListen, "base URL of the running origin's admin listener (--admin-listen)")
	f.dur(&o.timeout, "timeout", time.Hour, "give up after this long")
	return f, o
}

type restoreOptions struct{ in, dataDir string }

func restoreFlags(getenv func(string) (string, bool), out io.Writer) (*flags, *restoreOptions) {
	f := newFlags("origin restore", "PROVENANT_RESTORE_", "origin restore -in FILE -data-dir DIR", getenv, out)
	o := &restoreOptions{}
	f.str(&o.in, "in", "", "archive written by origin backup (required)")
	f.str(&o.dataDir, "data-dir", "", "data directory to create; must be missing or empty (required)")
	return f, o
}

// backupCmd is `origin backup`: it asks a running origin for a backup on
// its admin listener (online: the origin keeps serving) and writes it to
// -out atomically (a temporary file renamed once complete), mode 0600.
func backupCmd(args []string, getenv func(string) (string, bool), out io.Writer) error {
	f, o := backupFlags(getenv, out)
	if err := f.parse(args); err != nil {
		return err
	}
	file, adminURL, timeout := o.out, o.adminURL, o.timeout
	if file == "" {
		return errors.New("backup: -out FILE is required (see --help)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(adminURL, "/")+"/backup", nil)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if tok, ok := getenv("PROVENANT_ADMIN_TOKEN"); ok && tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("backup: is the origin running with --admin-listen? %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("backup: %s answered %s", req.URL, resp.Status)
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".backup-*")
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	n, err := io.Copy(tmp, resp.Body)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	fmt.Fprintf(out, "backup: wrote %s (%d bytes)\n", file, n)
	return nil
}

// restoreCmd is `origin restore`: it unpacks an archive into an empty data
// directory, with no origin running on it.
func restoreCmd(args []string, getenv func(string) (string, bool), out io.Writer) error {
	f, o := restoreFlags(getenv, out)
	if err := f.parse(args); err != nil {
		return err
	}
	file, dir := o.in, o.dataDir
	if file == "" || dir == "" {
		return errors.New("restore: -in FILE and -data-dir DIR are required (see --help)")
	}
	in, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer in.Close()
	log := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if err := server.Restore(context.Background(), in, dir, log); err != nil {
		return err
	}
	fmt.Fprintf(out, "restore: %s restored into %s; start the origin with --data-dir %s\n", file, dir, dir)
	return nil
}
