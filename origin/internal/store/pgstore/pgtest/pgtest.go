// Package pgtest starts a throwaway PostgreSQL cluster for tests, from the
// server binaries of the Debian postgresql package: initdb in a temporary
// directory, the postmaster listening only on a unix socket in that
// directory (no TCP port, no system service). It is imported by tests only.
package pgtest

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/testtool"
	"github.com/provenant/provenant/origin/internal/store/pgstore"
)

// BinDirEnv names the variable that overrides where the server binaries
// (initdb, postgres, pg_ctl) are looked up.
const BinDirEnv = "PROVENANT_PG_BIN"

// debianInitdb matches initdb of every PostgreSQL major version the Debian
// packages install.
const debianInitdb = "/usr/lib/postgresql/*/bin/initdb"

// Cluster is a running test cluster. Its data and socket live in one
// temporary directory that is removed when the test ends.
type Cluster struct {
	t      testing.TB
	bin    string
	dir    string // data directory
	sock   string // socket directory
	cred   *syscall.Credential
	cmd    *exec.Cmd
	exited chan struct{}
	log    *bytes.Buffer
	dbs    int
}

// BinDir returns the directory holding initdb and postgres, or "" when
// none is installed.
func BinDir() string {
	if d := os.Getenv(BinDirEnv); d != "" {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d
		}
		return ""
	}
	found, _ := filepath.Glob(debianInitdb)
	// Newest major version first (numerically: 9 < 15).
	slices.SortFunc(found, func(a, b string) int { return cmp.Compare(majorOf(b), majorOf(a)) })
	if len(found) > 0 {
		return filepath.Dir(found[0])
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p)
	}
	return ""
}

func majorOf(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}

// Start initialises and starts a cluster for t. Without the server
// binaries it skips t, except under CI, where their absence fails t
// (CI installs them, so a skip there would hide a lost test).
func Start(t testing.TB) *Cluster {
	t.Helper()
	bin := BinDir()
	if bin == "" {
		testtool.Missing(t, "PostgreSQL server binaries (initdb, postgres) not found; install the Debian package postgresql or set %s", BinDirEnv)
	}
	// initdb and postgres refuse to run as root; when the tests do, the
	// cluster runs as an unprivileged account (the postgres account the
	// Debian package creates, else nobody) that owns its directory.
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		c, err := unprivileged()
		if err != nil {
			t.Fatalf("pgtest: running as root and no unprivileged account to run PostgreSQL as: %v", err)
		}
		cred = c
	}
	// Not t.TempDir: its parents are private to the test's user, and the
	// cluster's account must reach the directory. Unix socket paths are
	// limited to ~100 bytes, so the directory stays short.
	root, err := os.MkdirTemp("", "pgtest")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	c := &Cluster{t: t, bin: bin, dir: filepath.Join(root, "data"), sock: root, cred: cred, log: &bytes.Buffer{}}
	if cred != nil {
		if err := os.Chown(root, int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatalf("pgtest: %v", err)
		}
	}
	// --no-sync: a throwaway cluster needs no fsync of its template
	// files, and on a loaded shared disk that sync takes seconds.
	initdb := c.command("initdb", "-D", c.dir, "-U", "postgres", "--auth=trust", "--no-instructions", "--no-sync", "-E", "UTF8", "--locale=C")
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("pgtest: initdb: %v\n%s", err, out)
	}
	c.start()
	t.Cleanup(c.stop)
	return c
}

func unprivileged() (*syscall.Credential, error) {
	var errs []error
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, errors.Join(errs...)
}

func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	// Its own process group, so Kill reaches the postmaster and every
	// backend at once, as a machine crash would.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: c.cred}
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	return cmd
}

// start runs the postmaster on the unix socket only (listen_addresses
// empty) with fsync and synchronous_commit at their durable defaults, and
// waits until it accepts connections.
func (c *Cluster) start() {
	c.t.Helper()
	c.log.Reset()
	c.cmd = c.command("postgres", "-D", c.dir, "-k", c.sock, "-c", "listen_addresses=",
		"-c", "fsync=on", "-c", "synchronous_commit=on", "-c", "max_connections=200", "-c", "shared_buffers=32MB")
	c.cmd.Stdout, c.cmd.Stderr = c.log, c.log
	if err := c.cmd.Start(); err != nil {
		c.t.Fatalf("pgtest: start postgres: %v", err)
	}
	c.exited = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { _ = cmd.Wait(); close(done) }(c.cmd, c.exited)
	deadline := time.Now().Add(60 * time.Second)
	for {
		ready := c.command("pg_isready", "-h", c.sock, "-U", "postgres", "-d", "postgres", "-q")
		if ready.Run() == nil {
			return
		}
		select {
		case <-c.exited:
			c.t.Fatalf("pgtest: postgres exited during start-up:\n%s", c.log.String())
		default:
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("pgtest: postgres not ready after 60 s:\n%s", c.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill SIGKILLs the postmaster and all its backends (no shutdown
// checkpoint, as in a crash) and restarts the cluster, which then runs
// crash recovery from its write-ahead log.
func (c *Cluster) Kill() {
	c.t.Helper()
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	<-c.exited
	// The stale postmaster.pid stays: the new postmaster finds its process
	// and shared memory gone and starts crash recovery, as after a crash.
	c.start()
}

func (c *Cluster) stop() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	select {
	case <-c.exited:
		return
	default:
	}
	// SIGINT: fast shutdown (roll back sessions, checkpoint, exit).
	_ = c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.exited:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		<-c.exited
	}
}

// URL returns a connection URL for database db over the cluster's socket.
func (c *Cluster) URL(db string) string {
	q := url.Values{"host": {c.sock}, "sslmode": {"disable"}}
	return (&url.URL{Scheme: "postgres", User: url.User("postgres"), Path: "/" + db, RawQuery: q.Encode()}).String()
}

// NewDatabase creates an empty database and returns its connection URL;
// tests sharing one cluster each take their own database.
func (c *Cluster) NewDatabase() string {
	c.t.Helper()
	c.dbs++
	name := fmt.Sprintf("t%d", c.dbs)
	cmd := c.command("createdb", "-h", c.sock, "-U", "postgres", name)
	if out, err := cmd.CombinedOutput(); err != nil {
		c.t.Fatalf("pgtest: createdb: %v\n%s", err, strings.TrimSpace(string(out)))
	}
	return c.URL(name)
}

// Open opens the store on the database at url with pgstore's defaults and
// closes it when the test ends; a store that does not open fails the test.
func Open(tb testing.TB, url string) *pgstore.Store {
	tb.Helper()
	st, err := pgstore.Open(context.Background(), pgstore.Config{URL: url})
	if err != nil {
		tb.Fatalf("pgtest: open store: %v", err)
	}
	tb.Cleanup(func() { _ = st.Close() })
	return st
}
