package cluster

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
)

// Chain is a geth --dev node on its own host: the installation's one
// chain, reached by every origin over JSON-RPC.
type Chain struct {
	// URL is its JSON-RPC endpoint.
	URL string
	// KeyFile holds the funded anchoring key (hex), for --eth-key.
	KeyFile string
	// Host is the chain's host.
	Host *Host
}

// ChainAvailable reports why no chain node can run here, or nil.
func ChainAvailable() error {
	return installed(gethPath(), "cluster: geth not found (go install github.com/ethereum/go-ethereum/cmd/geth@v1.17.8)")
}

// installed is nil when path names a program found here, else the error
// saying what is missing and how to install it.
func installed(path, missing string) error {
	if path == "" {
		return errors.New(missing)
	}
	return nil
}

// addServiceHost adds host name for a service whose program available
// says is installed; a missing program adds no host.
func (n *Net) addServiceHost(name string, available func() error) (*Host, error) {
	if err := available(); err != nil {
		return nil, err
	}
	return n.AddHost(name)
}

func gethPath() string { return goBinPath("geth") }

// goBinPath finds a program on PATH or, installed with go install, in
// $GOPATH/bin; "" when it is in neither.
func goBinPath(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// StartChain starts geth --dev on a new host and funds a fresh anchoring
// key from the dev account.
func StartChain(ctx context.Context, n *Net) (*Chain, error) {
	h, err := n.addServiceHost("chain", ChainAvailable)
	if err != nil {
		return nil, err
	}
	p, err := h.Start(StartOptions{}, gethPath(), "--dev", "--datadir", filepath.Join(h.Dir, "geth"),
		"--http", "--http.addr", h.IP, "--http.port", "8545", "--http.api", "eth,net,web3", "--http.vhosts", "*",
		"--authrpc.addr", "127.0.0.1", "--ipcdisable", "--nodiscover", "--maxpeers", "0", "--port", "0", "--verbosity", "2",
		// See gethtest.Start: geth's free-disk guard is meant for real
		// nodes, not a dev chain of a few megabytes.
		"--datadir.minfreedisk", "64", "--cache", "256")
	if err != nil {
		return nil, err
	}
	c := &Chain{URL: "http://" + h.Addr(8545), KeyFile: filepath.Join(n.dir, "anchor.key"), Host: h}
	var cl *rpc.Client
	err = waitFor(ctx, 60*time.Second, func() error {
		cl, err = rpc.DialContext(ctx, c.URL)
		if err != nil {
			return err
		}
		var id hexutil.Big
		if err := cl.CallContext(ctx, &id, "eth_chainId"); err != nil {
			cl.Close()
			return err
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: geth: %w\n%s", err, p.Tail())
	}
	defer cl.Close()
	var accts []common.Address
	if err := cl.CallContext(ctx, &accts, "eth_accounts"); err != nil || len(accts) == 0 {
		return nil, fmt.Errorf("cluster: geth eth_accounts = %v, %v", accts, err)
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		return nil, err
	}
	if err := crypto.SaveECDSA(c.KeyFile, key); err != nil {
		return nil, err
	}
	value := new(big.Int).Mul(big.NewInt(1000), big.NewInt(1e18))
	var tx common.Hash
	if err := cl.CallContext(ctx, &tx, "eth_sendTransaction", map[string]any{
		"from": accts[0], "to": crypto.PubkeyToAddress(key.PublicKey), "value": (*hexutil.Big)(value),
	}); err != nil {
		return nil, fmt.Errorf("cluster: fund the anchoring key: %w", err)
	}
	err = waitFor(ctx, 30*time.Second, func() error {
		var r map[string]any
		if err := cl.CallContext(ctx, &r, "eth_getTransactionReceipt", tx); err != nil || r == nil {
			return fmt.Errorf("funding not mined (%v)", err)
		}
		return nil
	})
	return c, err
}

// OriginConfig is what every origin of an installation shares.
type OriginConfig struct {
	// Binary is the origin executable (originproc.Build).
	Binary string
	// PostgresURL is the shared database (PG.URL).
	PostgresURL string
	// Chain is the shared chain.
	Chain *Chain
	// MasterKey is PROVENANT_MASTER_KEY (hex), the same on every origin.
	MasterKey string
	// TrustedProxies are the load balancer's and edges' addresses.
	TrustedProxies []string
	// Args are further flags, after the defaults StartOrigin sets.
	Args []string
	// Env is further environment.
	Env []string
}

// Origin is one origin process on its own host, with its own data
// directory; the signed files are in the installation's bucket when
// OriginConfig.Args name one (Install does), else in that directory.
type Origin struct {
	// Host is the origin's host.
	Host *Host
	// URL is "http://<ip>:8080".
	URL string

	cfg  OriginConfig
	mu   sync.Mutex
	proc *Proc
}

// OriginPort is the port every origin listens on.
const OriginPort = 8080

var listeningRe = regexp.MustCompile(`msg="origin listening" addr=(\S+)`)

// StartOrigin starts an origin on a new host called name.
func StartOrigin(ctx context.Context, n *Net, name string, cfg OriginConfig) (*Origin, error) {
	h, err := n.AddHost(name)
	if err != nil {
		return nil, err
	}
	o := &Origin{Host: h, URL: "http://" + h.Addr(OriginPort), cfg: cfg}
	return o, o.Start(ctx)
}

// Start starts the origin's process (again, after Crash) on its data
// directory and waits until it listens.
func (o *Origin) Start(ctx context.Context) error {
	cfg := o.cfg
	args := []string{"--listen", o.Host.Addr(OriginPort), "--admin-listen", "", "--chain-rpc-listen", "",
		"--data-dir", filepath.Join(o.Host.Dir, "data"), "--store", "postgres", "--postgres-url", cfg.PostgresURL,
		"--eth-rpc", cfg.Chain.URL, "--eth-key", cfg.Chain.KeyFile, "--eth-network", "custom", "--eth-chain-id", "1337",
		"--eth-network-name", "geth-dev", "--eth-confirmations", "1",
		"--trusted-proxies", strings.Join(cfg.TrustedProxies, ",")}
	args = append(args, cfg.Args...)
	env := append([]string{"PROVENANT_MASTER_KEY=" + cfg.MasterKey}, cfg.Env...)
	p, err := o.Host.Start(StartOptions{Env: env}, cfg.Binary, args...)
	if err != nil {
		return err
	}
	o.mu.Lock()
	o.proc = p
	o.mu.Unlock()
	return waitUp(ctx, 90*time.Second, p, "origin "+o.Host.Name, func() error {
		found := false
		p.Lines(func(l string) { found = found || listeningRe.MatchString(l) })
		if !found {
			return fmt.Errorf("origin %s not listening yet", o.Host.Name)
		}
		return nil
	})
}

// Crash SIGKILLs the origin's process.
func (o *Origin) Crash() { o.Host.Crash() }

// Proc is the origin's current process.
func (o *Origin) Proc() *Proc {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.proc
}

var leaseRe = regexp.MustCompile(`msg="anchoring lease acquired" .*epoch=(\d+)`)

// LeaseEpoch is the highest anchoring-lease epoch this origin's current
// process logged acquiring (0: it never led).
func (o *Origin) LeaseEpoch() uint64 {
	var e uint64
	o.Proc().Lines(func(l string) {
		if m := leaseRe.FindStringSubmatch(l); m != nil {
			if v, _ := strconv.ParseUint(m[1], 10, 64); v > e {
				e = v
			}
		}
	})
	return e
}

// Leader returns the origin that acquired the anchoring lease at the
// highest epoch (the leader now, unless it died since), or nil.
func Leader(origins []*Origin) *Origin {
	var best *Origin
	var epoch uint64
	for _, o := range origins {
		if e := o.LeaseEpoch(); e > epoch {
			best, epoch = o, e
		}
	}
	return best
}

// LB is HAProxy on its own host in front of the origins.
type LB struct {
	// URL is "http://<ip>" (port 80).
	URL string
	// Host is the load balancer's host.
	Host *Host
	proc *Proc
}

// LBAvailable reports why HAProxy cannot run here, or nil.
func LBAvailable() error {
	p, _ := exec.LookPath("haproxy")
	return installed(p, "cluster: haproxy not found (Debian package haproxy)")
}

// HAProxyConfig is the configuration StartLB runs: round robin over the
// origins that answer GET /ready with 200 (checked every 500 ms, out
// after 2 failures, back after 2 successes). Every origin is also listed
// as a backup without checks: when no origin is ready at all (a
// database failover makes every origin unready at once), requests still
// go to them and wait there for the new primary instead of failing at
// the load balancer. A request whose connection to an origin fails is
// sent to another (retry-on conn-failure: the request never reached
// the first, so this cannot sign twice); no other retry is made.
func HAProxyConfig(bind string, origins []*Origin) string {
	var b strings.Builder
	fmt.Fprintf(&b, `global
	maxconn 4096

defaults
	mode http
	option forwardfor
	option redispatch
	retries 3
	retry-on conn-failure
	timeout connect 2s
	timeout client 120s
	timeout server 120s

frontend api
	bind %s
	default_backend origins

backend origins
	balance roundrobin
	option allbackups
	option httpchk GET /ready
	http-check expect status 200
	default-server inter 500ms fall 2 rise 2
`, bind)
	for _, o := range origins {
		fmt.Fprintf(&b, "\tserver %s %s check\n", o.Host.Name, o.Host.Addr(OriginPort))
	}
	for _, o := range origins {
		fmt.Fprintf(&b, "\tserver %s-any %s backup\n", o.Host.Name, o.Host.Addr(OriginPort))
	}
	return b.String()
}

// StartLB starts HAProxy on a new host "lb" in front of origins.
func StartLB(ctx context.Context, n *Net, origins []*Origin) (*LB, error) {
	h, err := n.addServiceHost("lb", LBAvailable)
	if err != nil {
		return nil, err
	}
	lb := &LB{URL: "http://" + h.IP, Host: h}
	return lb, lb.start(ctx, origins)
}

func (lb *LB) start(ctx context.Context, origins []*Origin) error {
	cfgFile := filepath.Join(lb.Host.Dir, "haproxy.cfg")
	if err := os.WriteFile(cfgFile, []byte(HAProxyConfig(lb.Host.Addr(80), origins)), 0o644); err != nil {
		return err
	}
	p, err := lb.Host.Start(StartOptions{}, "haproxy", "-db", "-f", cfgFile)
	if err != nil {
		return err
	}
	lb.proc = p
	return waitUp(ctx, 30*time.Second, p, "haproxy", func() error { return httpGet(ctx, lb.URL+"/health") })
}

// Restart starts HAProxy again after a crash.
func (lb *LB) Restart(ctx context.Context, origins []*Origin) error {
	return lb.start(ctx, origins)
}

// Edge is an edge process on its own host, pointed at the load balancer.
type Edge struct {
	// URL is "http://<ip>:8090".
	URL string
	// Host is the edge's host.
	Host *Host
}

// StartEdge starts the edge binary on a new host called name, with the
// origin at originURL (the load balancer), verifying with the native
// engine.
func StartEdge(ctx context.Context, n *Net, name, binary, originURL string) (*Edge, error) {
	h, err := n.AddHost(name)
	if err != nil {
		return nil, err
	}
	e := &Edge{URL: "http://" + h.Addr(8090), Host: h}
	p, err := h.Start(StartOptions{}, binary, "--origin", originURL, "--listen", h.Addr(8090), "--admin-listen", "",
		"--verifier", "native", "--cache-dir", filepath.Join(h.Dir, "cache"))
	if err != nil {
		return nil, err
	}
	return e, waitUp(ctx, 60*time.Second, p, "edge", func() error { return httpGet(ctx, e.URL+"/health") })
}
