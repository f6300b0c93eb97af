package pgstore

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultConnectTimeout bounds one connection attempt to one host when
// the connection string sets no connect_timeout: a host that went away
// without closing its sockets (a partition, a powered-off machine) costs
// this, not the kernel's minutes of SYN retries, before the next host of
// a multi-host string is tried.
const DefaultConnectTimeout = 5 * time.Second

// DefaultReconnectWait is how long View and Update keep retrying when
// Config.ReconnectWait is zero: longer than a failover of the tools
// docs/operations.md describes (the monitor's detection plus the
// promotion, 10–30 s), so that clients see a slow answer rather than an
// error while the database changes primary.
const DefaultReconnectWait = 45 * time.Second

// connDefaults completes a parsed connection configuration for
// failover. A multi-host string without target_session_attrs would
// connect to whichever host answers first, a read-only standby
// included, and every write would then fail: such a string gets
// target_session_attrs=read-write, so the pool only ever connects to the
// primary, whichever host that is now. raw is the string as given (the
// parsed form cannot tell "any" from unset); env is the process's
// environment lookup (libpq's PGTARGETSESSIONATTRS counts as set).
func connDefaults(pc *pgxpool.Config, raw string, env func(string) (string, bool)) {
	cc := pc.ConnConfig
	if cc.ConnectTimeout == 0 {
		cc.ConnectTimeout = DefaultConnectTimeout
	}
	if len(cc.Fallbacks) == 0 || cc.ValidateConnect != nil || strings.Contains(raw, "target_session_attrs") {
		return
	}
	if _, ok := env("PGTARGETSESSIONATTRS"); ok {
		return
	}
	cc.ValidateConnect = pgconn.ValidateConnectTargetSessionAttrsReadWrite
}

func osEnv(k string) (string, bool) { return os.LookupEnv(k) }

// lostConnection reports an error that says the transaction never
// committed and may run again on another connection: the connection
// broke or could not be made, the server is shutting down or starting,
// or the session is read-only (a primary demoted under it). A
// transaction whose COMMIT was sent is never classified here by its
// caller: its outcome is unknown, and running it again could apply it
// twice.
func lostConnection(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			pe.Code == "57P01", // admin_shutdown
			pe.Code == "57P02", // crash_shutdown
			pe.Code == "57P03", // cannot_connect_now
			pe.Code == "25006": // read_only_sql_transaction
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return pgconn.SafeToRetry(err) || errors.As(err, &ce) || errors.As(err, &ne) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// reconnectPause is the wait before the attempt that follows a lost
// connection: short at first (a single dead pooled connection is
// replaced at once), up to a second while a failover is under way.
func reconnectPause(n int) time.Duration {
	d := min(time.Duration(n)*100*time.Millisecond, time.Second)
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// waitReconnect sleeps before the next attempt after a lost connection
// and reports whether one is still allowed: deadline is when the first
// loss was seen plus the reconnect wait.
func waitReconnect(ctx context.Context, n int, deadline time.Time) bool {
	d := reconnectPause(n)
	if time.Now().Add(d).After(deadline) {
		return false
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}
