// Package cluster runs a Provenant installation on hosts that are really
// separate: every component (origin, edge, database node, load balancer,
// chain node) runs in its own Linux network namespace with its own
// address on a private bridge, so nothing between components can go
// through loopback, shared memory or a shared local disk; a fault is
// made as on real machines (kill every process of a host, cut the
// routes between two hosts). It needs root (ip netns, veth, bridge) and
// the servers it starts; callers check Available first.
//
// It is test and bench support: the chaos test (origin/origintest/cluster)
// and `go run ./bench chaos` use it, and bench/chaos-cluster.sh builds
// the same network by hand for an operator. A new kind of component (an
// object store, a rate-limit store) is one more AddHost and Start.
package cluster

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Net is one private network: a bridge in the caller's namespace, which
// holds the first address (.1: the test's own clients and receivers),
// and one namespace per host, each joined to the bridge by a veth pair.
type Net struct {
	id     string // short random tag in every name, so concurrent runs never collide
	bridge string
	prefix string // "10.a.b."
	dir    string
	log    *slog.Logger

	mu    sync.Mutex
	hosts []*Host
	procs []*Proc
}

// Host is one machine of the network: a namespace with one address.
type Host struct {
	// Name is the host's role name ("origin1", "pg-node2").
	Name string
	// IP is its address on the network.
	IP string
	// Dir is a directory for this host only (its disk).
	Dir string

	n  *Net
	ns string
}

// Available reports why a network cannot be made here, or nil: it needs
// root and the ip command.
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("cluster: needs root (network namespaces)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return errors.New("cluster: the ip command (Debian package iproute2) is missing")
	}
	return nil
}

// NewNet makes the bridge; dir holds the hosts' directories and logs.
func NewNet(dir string, log *slog.Logger) (*Net, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var b [3]byte
	n := &Net{dir: dir, log: log}
	// A /24 in 10.200.0.0/13 chosen at random, and not one this machine
	// routes already: test networks of runs at the same time get
	// different ones.
	for try := 0; ; try++ {
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		n.id = hex.EncodeToString(b[:2])
		n.prefix = fmt.Sprintf("10.%d.%d.", 200+int(b[0])%8, b[2])
		out, err := exec.Command("ip", "-4", "route", "show", "to", "match", n.prefix+"1").Output()
		if err == nil && !strings.Contains(string(out), n.prefix+"0/24") || try == 20 {
			break
		}
	}
	n.bridge = "pvb" + n.id
	if err := run("ip", "link", "add", n.bridge, "type", "bridge"); err != nil {
		return nil, err
	}
	if err := run("ip", "addr", "add", n.prefix+"1/24", "dev", n.bridge); err != nil {
		n.Close()
		return nil, err
	}
	if err := run("ip", "link", "set", n.bridge, "up"); err != nil {
		n.Close()
		return nil, err
	}
	return n, nil
}

// GatewayIP is the caller's own address on the network (clients and
// webhook receivers the test runs itself listen there).
func (n *Net) GatewayIP() string { return n.prefix + "1" }

// CIDR is the network's range.
func (n *Net) CIDR() string { return n.prefix + "0/24" }

// AddHost makes a namespace with the next free address, joined to the
// bridge, and its own directory.
func (n *Net) AddHost(name string) (*Host, error) {
	n.mu.Lock()
	idx := len(n.hosts) + 10
	h := &Host{Name: name, IP: n.prefix + strconv.Itoa(idx), Dir: filepath.Join(n.dir, name), n: n,
		ns: fmt.Sprintf("pv%s-%s", n.id, name)}
	n.hosts = append(n.hosts, h)
	n.mu.Unlock()
	if idx > 250 {
		return nil, errors.New("cluster: network full")
	}
	if err := os.MkdirAll(h.Dir, 0o755); err != nil {
		return nil, err
	}
	veth := fmt.Sprintf("pv%s%d", n.id, idx)
	steps := [][]string{
		{"ip", "netns", "add", h.ns},
		{"ip", "link", "add", veth, "type", "veth", "peer", "name", veth + "p"},
		{"ip", "link", "set", veth, "master", n.bridge},
		{"ip", "link", "set", veth, "up"},
		{"ip", "link", "set", veth + "p", "netns", h.ns},
		{"ip", "-n", h.ns, "link", "set", veth + "p", "name", "eth0"},
		{"ip", "-n", h.ns, "addr", "add", h.IP + "/24", "dev", "eth0"},
		{"ip", "-n", h.ns, "link", "set", "eth0", "up"},
		{"ip", "-n", h.ns, "link", "set", "lo", "up"},
	}
	for _, s := range steps {
		if err := run(s[0], s[1:]...); err != nil {
			return nil, fmt.Errorf("cluster: host %s: %w", name, err)
		}
	}
	return h, nil
}

// Host returns the host called name, or nil.
func (n *Net) Host(name string) *Host {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, h := range n.hosts {
		if h.Name == name {
			return h
		}
	}
	return nil
}

// Close kills every process still running and removes the namespaces
// and the bridge (the veths go with their namespaces).
func (n *Net) Close() {
	n.mu.Lock()
	procs, hosts := n.procs, n.hosts
	n.mu.Unlock()
	for _, p := range procs {
		p.Kill()
	}
	for _, h := range hosts {
		h.killAll()
		_ = run("ip", "netns", "del", h.ns)
	}
	_ = run("ip", "link", "del", n.bridge)
}

// Partition cuts the routes between a and b in both directions (each
// drops what it would send to the other): packets are lost, not
// refused, as when a network link fails, so connections hang rather
// than fail. heal restores the routes.
func (n *Net) Partition(a, b *Host) (heal func() error, err error) {
	if err := run("ip", "-n", a.ns, "route", "add", "blackhole", b.IP+"/32"); err != nil {
		return nil, err
	}
	if err := run("ip", "-n", b.ns, "route", "add", "blackhole", a.IP+"/32"); err != nil {
		_ = run("ip", "-n", a.ns, "route", "del", "blackhole", b.IP+"/32")
		return nil, err
	}
	return func() error {
		return errors.Join(run("ip", "-n", a.ns, "route", "del", "blackhole", b.IP+"/32"),
			run("ip", "-n", b.ns, "route", "del", "blackhole", a.IP+"/32"))
	}, nil
}

// Proc is a process running on a host.
type Proc struct {
	// Name is "host/program".
	Name string
	cmd  *exec.Cmd
	log  *lineLog
	done chan struct{}
	once sync.Once
}

// StartOptions configures one process.
type StartOptions struct {
	// User runs the process as this account instead of root (PostgreSQL
	// refuses root).
	User string
	// Env is added to a minimal environment (PATH, HOME, LANG=C).
	Env []string
	// Dir is the working directory; "" is the host's directory.
	Dir string
	// Binds mounts directories of the host over system paths for this
	// process only (host directory → path), as a machine's own /run:
	// PostgreSQL's socket directory (/run/postgresql) would otherwise be
	// one for all hosts.
	Binds map[string]string
}

// Start runs bin with args inside the host's namespace; its standard
// output and error go to <host dir>/<program>.log and to a tail kept in
// memory (Tail).
func (h *Host) Start(opt StartOptions, bin string, args ...string) (*Proc, error) {
	argv := []string{"netns", "exec", h.ns}
	if len(opt.Binds) > 0 {
		// ip netns exec runs the command in a mount namespace of its own,
		// so the bind mounts stay private to this process tree.
		script := "set -e"
		for from, to := range opt.Binds {
			script += "; mount --bind " + shellQuote(from) + " " + shellQuote(to)
		}
		argv = append(argv, "sh", "-c", script+`; exec "$@"`, "sh")
	}
	if opt.User != "" {
		argv = append(argv, "setpriv", "--reuid="+opt.User, "--regid="+opt.User, "--init-groups", "--")
	}
	argv = append(argv, bin)
	argv = append(argv, args...)
	cmd := exec.Command("ip", argv...)
	cmd.Dir = opt.Dir
	if cmd.Dir == "" {
		cmd.Dir = h.Dir
	}
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.Dir, "LANG=C", "LC_ALL=C"}, opt.Env...)
	// Its own process group: a kill reaches the children (PostgreSQL's
	// backends) too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	f, err := os.OpenFile(filepath.Join(h.Dir, filepath.Base(bin)+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	p := &Proc{Name: h.Name + "/" + filepath.Base(bin), cmd: cmd, log: &lineLog{}, done: make(chan struct{})}
	w := io.MultiWriter(f, p.log)
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("cluster: start %s on %s: %w", bin, h.Name, err)
	}
	go func() { _ = cmd.Wait(); f.Close(); close(p.done) }()
	h.n.mu.Lock()
	h.n.procs = append(h.n.procs, p)
	h.n.mu.Unlock()
	return p, nil
}

// Signal sends sig to the process's group, or to the process alone for
// SIGHUP (a reload, which the children must not get).
func (p *Proc) Signal(sig syscall.Signal) {
	// Once reaped, the pid and its group number may belong to another
	// process (pid_max is small and tests run side by side): a group
	// signal then would reach, say, another package's initdb.
	select {
	case <-p.done:
		return
	default:
	}
	if sig == syscall.SIGHUP {
		_ = p.cmd.Process.Signal(sig)
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}

// Kill SIGKILLs the process's group and waits for it.
func (p *Proc) Kill() {
	p.Signal(syscall.SIGKILL)
	<-p.done
}

// Stop sends SIGTERM and waits up to grace, then kills.
func (p *Proc) Stop(grace time.Duration) {
	p.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		p.Kill()
	}
}

// Exited is closed when the process has exited.
func (p *Proc) Exited() <-chan struct{} { return p.done }

// Tail returns the last lines of the process's output.
func (p *Proc) Tail() string { return p.log.tail() }

// Lines calls fn for each line the process printed so far.
func (p *Proc) Lines(fn func(string)) { p.log.each(fn) }

// Crash SIGKILLs every process of the host, as when the machine loses
// power: PostgreSQL's backends and any helper die with the main process.
func (h *Host) Crash() { h.killAll() }

func (h *Host) killAll() {
	out, err := exec.Command("ip", "netns", "pids", h.ns).Output()
	if err != nil {
		return
	}
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	// Wait for them to be gone, so that a restart finds the ports free.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		out, _ := exec.Command("ip", "netns", "pids", h.ns).Output()
		if len(bytes.TrimSpace(out)) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Addr is the host's address with port.
func (h *Host) Addr(port int) string { return net.JoinHostPort(h.IP, strconv.Itoa(port)) }

// lineLog keeps a process's output lines (the last maxLines).
type lineLog struct {
	mu    sync.Mutex
	part  []byte
	lines []string
}

const maxLines = 20000

func (l *lineLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.part = append(l.part, b...)
	for {
		i := bytes.IndexByte(l.part, '\n')
		if i < 0 {
			break
		}
		l.lines = append(l.lines, string(l.part[:i]))
		l.part = l.part[i+1:]
	}
	if len(l.lines) > maxLines {
		l.lines = append([]string(nil), l.lines[len(l.lines)-maxLines/2:]...)
	}
	return len(b), nil
}

func (l *lineLog) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines[max(0, len(l.lines)-40):], "\n")
}

func (l *lineLog) each(fn func(string)) {
	l.mu.Lock()
	lines := append([]string(nil), l.lines...)
	l.mu.Unlock()
	for _, s := range lines {
		fn(s)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Run runs a short command on the host (as Start) and returns its
// combined output once it exits.
func (h *Host) Run(opt StartOptions, bin string, args ...string) ([]byte, error) {
	p, err := h.Start(opt, bin, args...)
	if err != nil {
		return nil, err
	}
	<-p.done
	var out strings.Builder
	p.Lines(func(l string) { out.WriteString(l + "\n") })
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		return []byte(out.String()), fmt.Errorf("cluster: %s on %s exited with %d: %s", bin, h.Name, code, strings.TrimSpace(out.String()))
	}
	return []byte(out.String()), nil
}

func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// httpGet succeeds when url answers 200.
func httpGet(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
}
