package cluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/provenant/provenant/origin/internal/store/pgstore/pgtest"
)

// PGDatabase is the database the origins use.
const PGDatabase = "provenant"

// pgPort is every database host's port (each host has its own address).
const pgPort = 5432

// PGAvailable reports why the highly available database cannot run
// here, or nil: it needs the PostgreSQL server binaries and
// pg_auto_failover (Debian: postgresql-15 and
// postgresql-15-auto-failover, which brings pg_autoctl).
func PGAvailable() error {
	if pgtest.BinDir() == "" {
		return errors.New("cluster: PostgreSQL server binaries not found (Debian package postgresql)")
	}
	if _, err := exec.LookPath("pg_autoctl"); err != nil {
		return errors.New("cluster: pg_autoctl not found (Debian package postgresql-15-auto-failover)")
	}
	if _, err := user.Lookup("postgres"); err != nil {
		return errors.New("cluster: no postgres account to run PostgreSQL as")
	}
	return nil
}

// PG is a PostgreSQL formation managed by pg_auto_failover: a monitor
// host and data-node hosts (the first starts as primary, the others
// join as synchronous standbys). The monitor health-checks the nodes
// and promotes a standby when the primary fails; a node that comes back
// rejoins as a standby.
type PG struct {
	n       *Net
	bin     string
	monitor *Host
	nodes   []*Host

	mu    sync.Mutex
	procs map[*Host]*Proc
}

// PGConfig configures StartPostgres.
type PGConfig struct {
	// Nodes is the number of data nodes; 0 means 2 (a primary and one
	// synchronous standby).
	Nodes int
	// UnhealthyAfter is how long the monitor waits before it considers
	// a silent primary failed; 0 means 3 s (pg_auto_failover's default is
	// 20 s; a test wants failovers quick, an operator weighs it against
	// needless failovers on a slow network).
	UnhealthyAfter time.Duration
	// PartitionTimeout is how long a primary that reaches neither the
	// monitor nor a standby keeps accepting writes before it demotes
	// itself; 0 means 4 s (default 20 s). The monitor lets the standby
	// take writes only after DemoteTimeout, which must exceed it, so two
	// primaries never accept writes at once.
	PartitionTimeout time.Duration
	// DemoteTimeout is that wait; 0 means PartitionTimeout + 4 s
	// (default 30 s). It is most of a failover's duration.
	DemoteTimeout time.Duration
}

// StartPostgres starts the monitor and the data nodes, each on its own
// host, and returns once a primary commits synchronously to a standby.
func StartPostgres(ctx context.Context, n *Net, cfg PGConfig) (*PG, error) {
	if err := PGAvailable(); err != nil {
		return nil, err
	}
	cfg.Nodes = cmp.Or(cfg.Nodes, 2)
	cfg.UnhealthyAfter = cmp.Or(cfg.UnhealthyAfter, 3*time.Second)
	cfg.PartitionTimeout = cmp.Or(cfg.PartitionTimeout, 4*time.Second)
	cfg.DemoteTimeout = cmp.Or(cfg.DemoteTimeout, cfg.PartitionTimeout+4*time.Second)
	if cfg.DemoteTimeout <= cfg.PartitionTimeout {
		return nil, errors.New("cluster: DemoteTimeout must exceed PartitionTimeout")
	}
	pg := &PG{n: n, bin: pgtest.BinDir(), procs: map[*Host]*Proc{}}
	var err error
	if pg.monitor, err = n.AddHost("pg-monitor"); err != nil {
		return nil, err
	}
	if err := pg.prepare(pg.monitor); err != nil {
		return nil, err
	}
	if err := pg.start(pg.monitor, "create", "monitor", "--pgdata", pg.data(pg.monitor), "--pgport", strconv.Itoa(pgPort),
		"--hostname", pg.monitor.IP, "--auth", "trust", "--no-ssl", "--run"); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, 60*time.Second, func() error {
		_, err := pg.psql(pg.monitor, "pg_auto_failover", "SELECT 1")
		return err
	}); err != nil {
		return nil, fmt.Errorf("cluster: monitor: %w\n%s", err, pg.tail(pg.monitor))
	}
	// Faster detection than the defaults (5 s checks, 20 s before a node
	// is unhealthy): the monitor's settings, reloaded.
	ms := int(cfg.UnhealthyAfter / time.Millisecond)
	for _, q := range []string{
		"ALTER SYSTEM SET pgautofailover.health_check_period = 1000",
		"ALTER SYSTEM SET pgautofailover.health_check_timeout = 1000",
		"ALTER SYSTEM SET pgautofailover.health_check_max_retries = 1",
		"ALTER SYSTEM SET pgautofailover.health_check_retry_delay = 500",
		fmt.Sprintf("ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = %d", ms),
		fmt.Sprintf("ALTER SYSTEM SET pgautofailover.primary_demote_timeout = %d", cfg.DemoteTimeout/time.Millisecond),
		"SELECT pg_reload_conf()",
	} {
		if _, err := pg.psql(pg.monitor, "pg_auto_failover", q); err != nil {
			return nil, err
		}
	}
	for i := range cfg.Nodes {
		h, err := n.AddHost(fmt.Sprintf("pg-node%d", i+1))
		if err != nil {
			return nil, err
		}
		pg.nodes = append(pg.nodes, h)
		if err := pg.prepare(h); err != nil {
			return nil, err
		}
		monitorURL := fmt.Sprintf("postgres://autoctl_node@%s/pg_auto_failover?sslmode=prefer", pg.monitor.Addr(pgPort))
		if err := pg.start(h, "create", "postgres", "--pgdata", pg.data(h), "--pgport", strconv.Itoa(pgPort),
			"--hostname", h.IP, "--name", h.Name, "--auth", "trust", "--no-ssl", "--pg-hba-lan",
			"--dbname", PGDatabase, "--monitor", monitorURL, "--run"); err != nil {
			return nil, err
		}
		// The keeper's own timeout, set in its configuration file once
		// create has written it, and reloaded.
		cfgFile := filepath.Join(h.Dir, "config", "pg_autoctl", pg.data(h), "pg_autoctl.cfg")
		if err := waitFor(ctx, 60*time.Second, func() error { _, err := os.Stat(cfgFile); return err }); err != nil {
			return nil, fmt.Errorf("cluster: %s: %w\n%s", h.Name, err, pg.tail(h))
		}
		// Not before the keeper has finished initialising: the reload
		// signal would also reach the initdb or pg_basebackup it runs
		// meanwhile and fail the node's initialisation, which a loaded
		// machine made likely. The keeper writes its state file a moment
		// before its init state file, so the files alone leave a window;
		// a server that answers on the node's socket has its data
		// directory made, and nothing the signal could break runs any
		// more.
		stateDir := filepath.Join(h.Dir, "share", "pg_autoctl", pg.data(h))
		if err := waitFor(ctx, 120*time.Second, func() error {
			if _, err := os.Stat(filepath.Join(stateDir, "pg_autoctl.state")); err != nil {
				return err
			}
			if _, err := os.Stat(filepath.Join(stateDir, "pg_autoctl.init")); err == nil {
				return errors.New("keeper still initialising")
			}
			if out, err := pg.psql(h, "postgres", "SELECT 1"); err != nil {
				return fmt.Errorf("postgres not answering yet: %w: %s", err, out)
			}
			if _, err := os.Stat(filepath.Join(stateDir, "pg_autoctl.init")); err == nil {
				return errors.New("keeper still initialising")
			}
			return nil
		}); err != nil {
			return nil, fmt.Errorf("cluster: %s: %w\n%s", h.Name, err, pg.tail(h))
		}
		secs := strconv.Itoa(int(cfg.PartitionTimeout / time.Second))
		want := "network_partition_timeout = " + secs + "\n"
		// config set writes the file and signals the running keeper to
		// reload it; the signal reaches config set too, so its exit status
		// says nothing, and a keeper finishing its start can still write
		// the file back from memory: so it is set until the file keeps
		// the value for a moment.
		if err := waitFor(ctx, 60*time.Second, func() error {
			_, _ = h.Run(pg.opts(h), "pg_autoctl", "config", "set", "--pgdata", pg.data(h), "timeout.network_partition_timeout", secs)
			time.Sleep(time.Second)
			b, err := os.ReadFile(cfgFile)
			if err == nil && !strings.Contains(string(b), want) {
				err = errors.New("network_partition_timeout not set")
			}
			return err
		}); err != nil {
			return nil, fmt.Errorf("cluster: %s: %s: %w\n%s", h.Name, cfgFile, err, pg.tail(h))
		}
		if i == 0 {
			// The first node must be primary before a standby can clone it.
			if err := waitFor(ctx, 90*time.Second, func() error {
				p, err := pg.Primary(ctx)
				if err == nil && p != h {
					err = errors.New("not the first node")
				}
				return err
			}); err != nil {
				return nil, fmt.Errorf("cluster: first node: %w\n%s", err, pg.tail(h))
			}
		}
	}
	if err := pg.WaitSynchronous(ctx, 120*time.Second); err != nil {
		return nil, err
	}
	return pg, nil
}

// Nodes returns the data-node hosts.
func (pg *PG) Nodes() []*Host { return pg.nodes }

// Monitor returns the monitor's host.
func (pg *PG) Monitor() *Host { return pg.monitor }

// URL is the connection string the origins use: every data node, and
// target_session_attrs=read-write so that a connection goes to whichever
// node is primary now.
func (pg *PG) URL() string {
	var hosts []string
	for _, h := range pg.nodes {
		hosts = append(hosts, h.Addr(pgPort))
	}
	return "postgres://postgres@" + strings.Join(hosts, ",") + "/" + PGDatabase +
		"?sslmode=disable&target_session_attrs=read-write&connect_timeout=2"
}

// nodeURL is a connection string for one node.
func (pg *PG) nodeURL(h *Host) string {
	return "postgres://postgres@" + h.Addr(pgPort) + "/" + PGDatabase + "?sslmode=disable&connect_timeout=2"
}

// Primary returns the node that accepts writes now (asked of each node,
// not of the monitor, whose view may lag).
func (pg *PG) Primary(ctx context.Context) (*Host, error) {
	var errs []error
	for _, h := range pg.nodes {
		ro, err := pg.query(ctx, h, `SELECT pg_is_in_recovery()`)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ro == "false" {
			return h, nil
		}
	}
	return nil, fmt.Errorf("cluster: no primary: %w", errors.Join(errs...))
}

// query runs one single-value query on node h from the caller's
// namespace.
func (pg *PG) query(ctx context.Context, h *Host, q string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pg.nodeURL(h))
	if err != nil {
		return "", err
	}
	defer conn.Close(context.Background())
	var v any
	if err := conn.QueryRow(ctx, q).Scan(&v); err != nil {
		return "", err
	}
	return fmt.Sprint(v), nil
}

// SyncStandbys is the number of standbys the primary now waits for at
// each commit (pg_stat_replication rows in state sync or quorum).
func (pg *PG) SyncStandbys(ctx context.Context) (int, error) {
	p, err := pg.Primary(ctx)
	if err != nil {
		return 0, err
	}
	v, err := pg.query(ctx, p, `SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum') AND state = 'streaming'`)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(v)
}

// WaitSynchronous waits until the primary commits synchronously to
// every other node (they have joined, or rejoined after a crash) and the
// monitor has seen every node reach the state it assigned. A standby
// clones the primary with a base backup, which waits for a checkpoint;
// the primary is asked for one each second meanwhile, as a spread
// checkpoint would take minutes. The monitor's side matters as much: it
// promotes a standby only after the primary has reported "primary", so a
// primary that fails while still "wait_primary" is never failed over.
func (pg *PG) WaitSynchronous(ctx context.Context, limit time.Duration) error {
	err := waitFor(ctx, limit, func() error {
		n, err := pg.SyncStandbys(ctx)
		if err == nil && n < len(pg.nodes)-1 {
			err = fmt.Errorf("%d synchronous standbys of %d", n, len(pg.nodes)-1)
			if p, perr := pg.Primary(ctx); perr == nil {
				_, _ = pg.psql(p, PGDatabase, "CHECKPOINT")
			}
		}
		if err == nil {
			err = pg.settled()
		}
		return err
	})
	if err != nil {
		var tails []string
		for _, h := range pg.nodes {
			tails = append(tails, h.Name+":\n"+pg.tail(h))
		}
		return fmt.Errorf("cluster: database not synchronous: %w\n%s", err, strings.Join(tails, "\n"))
	}
	return nil
}

// settled reports an error until the monitor sees one primary and every
// other node a secondary, each in the state the monitor assigned it.
func (pg *PG) settled() error {
	v, err := pg.psql(pg.monitor, "pg_auto_failover",
		`SELECT count(*) FILTER (WHERE reportedstate = 'primary' AND goalstate = 'primary')`+
			` || '/' || count(*) FILTER (WHERE reportedstate = 'secondary' AND goalstate = 'secondary')`+
			` FROM pgautofailover.node`)
	if err != nil {
		return fmt.Errorf("monitor: %w", err)
	}
	if want := fmt.Sprintf("1/%d", len(pg.nodes)-1); v != want {
		return fmt.Errorf("monitor sees %s primary/secondary nodes settled, want %s", v, want)
	}
	return nil
}

// Crash SIGKILLs every process of node h (postgres, its backends and
// pg_autoctl), as when the machine fails.
func (pg *PG) Crash(h *Host) {
	h.Crash()
	// A machine that failed comes back with no process under the pid
	// its postmaster.pid names. Here the pid lives on, possibly as some
	// other test's process, and pg_ctl stop (which pg_autoctl runs)
	// would signal it; so the stale file goes, as a reboot makes it moot.
	_ = os.Remove(filepath.Join(pg.data(h), "postmaster.pid"))
	pg.mu.Lock()
	delete(pg.procs, h)
	pg.mu.Unlock()
}

// Restart runs pg_autoctl again on a crashed node: it starts PostgreSQL
// and, told by the monitor, rejoins as a standby (pg_rewind) when
// another node was promoted meanwhile.
func (pg *PG) Restart(h *Host) error {
	return pg.start(h, "run", "--pgdata", pg.data(h))
}

// CrashAll SIGKILLs the monitor and every node.
func (pg *PG) CrashAll() {
	for _, h := range append([]*Host{pg.monitor}, pg.nodes...) {
		pg.Crash(h)
	}
}

// RestartAll starts the monitor and, once it answers, every node again
// (a keeper that finds no monitor gives up within a second, where a
// service manager would restart it).
func (pg *PG) RestartAll(ctx context.Context) error {
	if err := pg.Restart(pg.monitor); err != nil {
		return err
	}
	if err := waitFor(ctx, 60*time.Second, func() error {
		_, err := pg.psql(pg.monitor, "pg_auto_failover", "SELECT 1")
		return err
	}); err != nil {
		return fmt.Errorf("cluster: monitor after restart: %w\n%s", err, pg.tail(pg.monitor))
	}
	for _, h := range pg.nodes {
		if err := pg.Restart(h); err != nil {
			return err
		}
	}
	return nil
}

func (pg *PG) data(h *Host) string { return filepath.Join(h.Dir, "pgdata") }
func (pg *PG) run(h *Host) string  { return filepath.Join(h.Dir, "run") }

// prepare makes the host's directories, owned by the postgres account.
func (pg *PG) prepare(h *Host) error {
	u, err := user.Lookup("postgres")
	if err != nil {
		return err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	for _, d := range []string{h.Dir, pg.run(h), filepath.Join(h.Dir, "config"), filepath.Join(h.Dir, "share")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		if err := os.Chown(d, uid, gid); err != nil {
			return err
		}
	}
	// The parents must be reachable by the postgres account.
	for d := filepath.Dir(h.Dir); d != "/" && d != "."; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil && st.Mode().Perm()&0o001 == 0 {
			_ = os.Chmod(d, st.Mode().Perm()|0o011)
		}
	}
	return nil
}

func (pg *PG) opts(h *Host) StartOptions {
	return StartOptions{
		User:  "postgres",
		Binds: map[string]string{pg.run(h): "/run/postgresql"},
		Env: []string{
			"PATH=" + pg.bin + ":/usr/bin:/bin",
			"XDG_CONFIG_HOME=" + filepath.Join(h.Dir, "config"),
			"XDG_DATA_HOME=" + filepath.Join(h.Dir, "share"),
			"PGHOST=/run/postgresql",
		},
	}
}

func (pg *PG) start(h *Host, args ...string) error {
	p, err := h.Start(pg.opts(h), "pg_autoctl", args...)
	if err != nil {
		return err
	}
	pg.mu.Lock()
	pg.procs[h] = p
	pg.mu.Unlock()
	return nil
}

// psql runs one statement on host h over its local socket.
func (pg *PG) psql(h *Host, db, q string) (string, error) {
	out, err := h.Run(pg.opts(h), filepath.Join(pg.bin, "psql"), "-X", "-q", "-At", "-U", "postgres", "-d", db, "-c", q)
	return strings.TrimSpace(string(out)), err
}

func (pg *PG) tail(h *Host) string {
	pg.mu.Lock()
	p := pg.procs[h]
	pg.mu.Unlock()
	if p == nil {
		return "(not running)"
	}
	return p.Tail()
}

// waitFor calls f until it returns nil, limit passes or ctx ends.
// waitUp waits, at most limit, until ready answers nil from the service
// process p started; once p has exited the error names what and shows
// the process's last lines.
func waitUp(ctx context.Context, limit time.Duration, p *Proc, what string, ready func() error) error {
	return waitFor(ctx, limit, func() error {
		select {
		case <-p.Exited():
			return fmt.Errorf("%s exited at start:\n%s", what, p.Tail())
		default:
		}
		return ready()
	})
}

func waitFor(ctx context.Context, limit time.Duration, f func() error) error {
	deadline := time.Now().Add(limit)
	for {
		err := f()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %v: %w", limit, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
