// Package redistest starts a throwaway redis-server (or valkey-server)
// for tests: on a unix socket in a temporary directory, without
// persistence, stopped when the test ends. Without the binary the test
// is skipped, except under CI, where it fails: .ci/run
// installs it.
package redistest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/testtool"
)

// Server is a running redis-server.
type Server struct {
	t    testing.TB
	bin  string
	dir  string
	sock string
	cmd  *exec.Cmd
}

// Start starts a redis-server for t.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := testtool.LookPath(t, "apt-get install redis-server", "redis-server", "valkey-server")
	// A short directory: a unix socket's path is limited to ~100 bytes.
	dir, err := os.MkdirTemp("", "rds")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	s := &Server{t: t, bin: bin, dir: dir, sock: filepath.Join(dir, "redis.sock")}
	s.Restart()
	t.Cleanup(s.Stop)
	return s
}

// URL is the client URL of the server.
func (s *Server) URL() string { return "unix://" + s.sock }

// Stop stops the server (its state is lost); a stopped server's socket
// refuses connections.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	testtool.Kill(s.cmd)
	s.cmd = nil
	_ = os.Remove(s.sock)
}

// Restart starts the server again (empty) on the same socket, and waits
// until it accepts connections.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	cmd := exec.Command(s.bin, "--port", "0", "--unixsocket", s.sock, "--unixsocketperm", "700",
		"--save", "", "--appendonly", "no", "--dir", s.dir, "--logfile", filepath.Join(s.dir, "redis.log"))
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start %s: %v", s.bin, err)
	}
	s.cmd = cmd
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if c, err := net.Dial("unix", s.sock); err == nil {
			_ = c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
	s.t.Fatalf("redis-server did not start: %s", log)
}
