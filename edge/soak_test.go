package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/formdata"
	"github.com/provenant/provenant/origin/origintest/originproc"
)

// selfEnv, set, makes the test binary the edge: TestMain runs the edge's
// main with these arguments (JSON) instead of the tests, so that the soak
// needs no separate build of the edge.
const selfEnv = "PROVENANT_EDGE_SELF_ARGS"

func TestMain(m *testing.M) {
	if v, ok := os.LookupEnv(selfEnv); ok {
		var args []string
		if err := json.Unmarshal([]byte(v), &args); err != nil {
			fmt.Fprintln(os.Stderr, "edge:", err)
			os.Exit(2)
		}
		if err := run(args); err != nil {
			fmt.Fprintln(os.Stderr, "edge:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// soakEnv sets the soak's attack phase (a Go duration); the default keeps
// the test within half a minute of `make test`.
const soakEnv = "PROVENANT_SOAK"

// soakFiles is the open-files limit both servers run under: low enough
// that a few thousand hostile sockets exhaust it, so that the test reaches
// the limit without needing 20,000 sockets. The servers fit their
// connection caps into it (connlimit.FitCap: 2048 less 512). A test
// process with fewer descriptors of its own scales both down (soakScale).
const soakFiles = 2048

// soakScale returns the hostile connections held per server (about 4,000,
// the stalled headers 30 per address) and the servers' open-files limit,
// scaled down when this process's own limit could not hold them: the
// servers' caps (their limit less 512) stay well under the hostile count.
func soakScale(t *testing.T) (stallPerAddr, serverFiles int) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		t.Fatal(err)
	}
	perServer := min(4000, (int(min(r.Cur, 1<<20))-1000)/2) // both servers, plus the test's own
	if perServer < 1600 {
		t.Skipf("an open-files limit of %d cannot hold the soak's hostile connections", r.Cur)
	}
	stallPerAddr = (perServer - 1000) / 100 // 100 addresses; 1,000 body attackers
	return stallPerAddr, min(soakFiles, 512+perServer/2)
}

// TestSoak runs the real origin and the real edge on loopback, each under
// a low open-files limit, and keeps a steady legitimate load on them —
// verify through the edge, sign and health on the origin — while hostile
// clients on other loopback addresses hold thousands of connections:
// headers that trickle in and never end, bodies that trickle in, bodies
// declared and never sent (over the cap and under it). It asserts that
// every legitimate request is answered correctly within a bound, that
// each server's resident memory stays bounded, that the origin's /ready
// reports the saturation, and that neither process exits.
func TestSoak(t *testing.T) {
	if raceDetector {
		t.Skip("the soak's goroutines exceed the race detector's limit; `make test-go` runs it")
	}
	attack := 10 * time.Second
	if v := os.Getenv(soakEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("%s: %v", soakEnv, err)
		}
		attack = d
	}
	stallPerAddr, serverFiles := soakScale(t)
	root, dir := checkout(t)
	originBin, err := originproc.Build(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	edgeBin, err := os.Executable() // this test binary, as the edge (TestMain)
	if err != nil {
		t.Fatal(err)
	}
	// A wrapper lowers the open-files limit (soft and hard) before the
	// server starts: the servers cannot raise it back.
	wrap := func(bin string) string {
		w := filepath.Join(dir, filepath.Base(bin)+"-limited")
		script := fmt.Sprintf("#!/bin/sh\nulimit -n %d || exit 97\nexec %q \"$@\"\n", serverFiles, bin)
		if err := os.WriteFile(w, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return w
	}
	origin := originproc.Start(t, originproc.Options{Binary: wrap(originBin), Args: []string{
		"--header-timeout", "3s", "--max-conns-per-ip", "64", "--trusted-proxies", "127.0.0.1/32",
		"--limit-sign", "100000", "--limit-verify", "100000"}})
	edge := startSoakEdge(t, wrap(edgeBin), origin.URL)

	// A signer on the origin, and a signed picture to verify through the edge.
	signer := newSoakSigner(t, origin.URL)
	signed := signer.sign(t, 0)

	baseOrigin, baseEdge := rss(t, origin.Pid), rss(t, edge.pid)
	ctx, cancel := context.WithTimeout(context.Background(), attack)
	defer cancel()
	var wg sync.WaitGroup
	var hostile atomic.Int64
	for i := range 4 {
		// Stalled headers on both servers, from 100 addresses each.
		for _, target := range []string{origin.URL, edge.url} {
			wg.Go(func() { stallHeaders(ctx, target, 2+i*25, 25, stallPerAddr, &hostile) })
		}
	}
	for _, target := range []string{origin.URL + "/api/v1/sign", edge.url + "/api/v1/verify"} {
		wg.Go(func() { slowBodies(ctx, target, 120, 100, &hostile) })
		wg.Go(func() { unsentBodies(ctx, target, 150, 100, &hostile) })
	}

	// Legitimate load until the attack ends.
	var mu sync.Mutex
	var failures []string
	var worst time.Duration
	var served, readySaturated atomic.Int64
	legit := func(what string, every time.Duration, do func(n int) error) {
		wg.Go(func() {
			tick := time.NewTicker(every)
			defer tick.Stop()
			for n := 1; ; n++ {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				t0 := time.Now()
				err := do(n)
				d := time.Since(t0)
				mu.Lock()
				worst = max(worst, d)
				if err == nil && d > legitBound {
					err = fmt.Errorf("took %v", d)
				}
				if err != nil {
					failures = append(failures, fmt.Sprintf("%s #%d: %v", what, n, err))
				} else {
					served.Add(1)
				}
				mu.Unlock()
			}
		})
	}
	client := &http.Client{Timeout: 2 * legitBound, Transport: &http.Transport{DisableKeepAlives: true}}
	legit("verify through the edge", 300*time.Millisecond, func(n int) error {
		return expect(client, "POST", edge.url+"/api/v1/verify", map[string]string{"X-Forwarded-For": fmt.Sprintf("10.1.%d.%d", n/250, n%250+1)},
			signed, 200, `"authentic":true`)
	})
	legit("sign on the origin", time.Second, func(n int) error { _, err := signer.trySign(client, n); return err })
	legit("health of the origin", 500*time.Millisecond, func(int) error { return expect(client, "GET", origin.URL+"/health", nil, nil, 200, "") })
	legit("health through the edge", 500*time.Millisecond, func(int) error { return expect(client, "GET", edge.url+"/health", nil, nil, 200, "") })
	wg.Go(func() {
		for ctx.Err() == nil {
			resp, err := client.Get(origin.URL + "/ready")
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 503 && strings.Contains(string(b), `"connections":"fail"`) {
					readySaturated.Add(1)
				}
			}
			time.Sleep(time.Second)
		}
	})
	wg.Wait()
	for name, pid := range map[string]int{"origin": origin.Pid, "edge": edge.pid} {
		if exited(pid) {
			t.Fatalf("the %s exited during the attack", name)
		}
	}
	peakOrigin, peakEdge := rss(t, origin.Pid), rss(t, edge.pid)
	t.Logf("attack %v: %d hostile connections opened; %d legitimate requests served, slowest %v; origin RSS %d → %d MiB, edge %d → %d MiB; /ready saturated %d times",
		attack, hostile.Load(), served.Load(), worst, baseOrigin>>20, peakOrigin>>20, baseEdge>>20, peakEdge>>20, readySaturated.Load())
	for _, f := range failures {
		t.Errorf("legitimate request failed: %s", f)
	}
	if served.Load() < int64(attack/time.Second)*3 {
		t.Errorf("only %d legitimate requests served in %v", served.Load(), attack)
	}
	if readySaturated.Load() == 0 {
		t.Errorf("the origin's /ready never reported the saturated connection budget")
	}
	if grow := peakOrigin - baseOrigin; grow > 512<<20 {
		t.Errorf("origin grew by %d MiB under the attack", grow>>20)
	}
	if peakEdge > 384<<20 {
		t.Errorf("edge at %d MiB under the attack", peakEdge>>20)
	}
	for name, pid := range map[string]int{"origin": origin.Pid, "edge": edge.pid} {
		if exited(pid) {
			t.Errorf("the %s exited", name)
		}
	}
	select {
	case err := <-edge.exit:
		t.Errorf("the edge exited: %v", err)
	default:
	}
	// After the attack both still answer at once.
	if err := expect(client, "GET", edge.url+"/health", nil, nil, 200, ""); err != nil {
		t.Errorf("edge after the attack: %v", err)
	}
}

// legitBound is the longest a legitimate request may take under attack:
// generous, since `make test` runs other packages' tests alongside (runs
// on the reference machine took at most 1.4 s).
const legitBound = 10 * time.Second

type soakEdge struct {
	url  string
	pid  int
	exit chan error
}

func startSoakEdge(t *testing.T, bin, origin string) *soakEdge {
	t.Helper()
	args, _ := json.Marshal([]string{"--origin", origin, "--listen", "127.0.0.1:0", "--admin-listen", "", "--verifier", "native",
		"--header-timeout", "3s", "--max-conns-per-ip", "64", "--trusted-proxies", "127.0.0.1/32"})
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), selfEnv+"="+string(args))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	e := &soakEdge{pid: cmd.Process.Pid, exit: make(chan error, 1)}
	go func() { e.exit <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-e.exit })
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`msg="edge listening" addr=(\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case a := <-addr:
		e.url = "http://" + a
	case err := <-e.exit:
		t.Fatalf("the edge exited at start: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the edge did not start listening")
	}
	return e
}

// dialFrom connects to base's host from the loopback address 127.0.0.<n>
// (2 ≤ n < 255): each n is another client to the servers.
func dialFrom(base string, n int) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(n))}, Timeout: 2 * time.Second}
	return d.Dial("tcp", strings.TrimPrefix(base, "http://")[:strings.Index(strings.TrimPrefix(base, "http://")+"/", "/")])
}

// hold keeps c open until ctx ends or the server closes it, writing one
// more byte of trickle every second.
func hold(ctx context.Context, c net.Conn, trickle []byte) {
	defer c.Close()
	go func() {
		<-ctx.Done()
		_ = c.Close()
	}()
	go func() { _, _ = io.Copy(io.Discard, c) }()
	for i := 0; ctx.Err() == nil; i++ {
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
		if _, err := c.Write(trickle[i%len(trickle) : i%len(trickle)+1]); err != nil {
			return
		}
	}
}

// attacker keeps per connections open from each of n addresses starting
// at 127.0.0.<first>, each opened by open and held by hold, reopening
// those the server closes.
func attacker(ctx context.Context, base string, first, n, per int, open func(net.Conn) error, trickle []byte, count *atomic.Int64) {
	var wg sync.WaitGroup
	for a := first; a < first+n; a++ {
		for range per {
			wg.Go(func() {
				for ctx.Err() == nil {
					c, err := dialFrom(base, a)
					if err != nil {
						time.Sleep(100 * time.Millisecond)
						continue
					}
					count.Add(1)
					if open(c) != nil {
						c.Close()
						continue
					}
					hold(ctx, c, trickle)
					// Closed by the server: come back a second later.
					time.Sleep(time.Second)
				}
			})
		}
	}
	wg.Wait()
}

func stallHeaders(ctx context.Context, base string, first, n, per int, count *atomic.Int64) {
	attacker(ctx, base, first, n, per, func(c net.Conn) error {
		_, err := io.WriteString(c, "GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
		return err
	}, []byte("abcdefgh"), count)
}

func slowBodies(ctx context.Context, url string, first, n int, count *atomic.Int64) {
	path := url[strings.Index(url[len("http://"):], "/")+len("http://"):]
	attacker(ctx, url, first, n, 5, func(c net.Conn) error {
		_, err := io.WriteString(c, "POST "+path+" HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000000\r\n\r\n--b\r\n")
		return err
	}, []byte("xxxxxxxx"), count)
}

func unsentBodies(ctx context.Context, url string, first, n int, count *atomic.Int64) {
	path := url[strings.Index(url[len("http://"):], "/")+len("http://"):]
	var k atomic.Int64
	attacker(ctx, url, first, n, 5, func(c net.Conn) error {
		size := "10000000" // within the cap: waits for a body that never comes
		if k.Add(1)%2 == 0 {
			size = "200000000000" // over it: answered 413 at once
		}
		_, err := io.WriteString(c, "POST "+path+" HTTP/1.1\r\nHost: x\r\nContent-Length: "+size+"\r\n\r\n")
		return err
	}, []byte(" "), count)
}

func expect(c *http.Client, method, url string, hdr map[string]string, body []byte, status int, contains string) error {
	var r io.Reader
	ct := ""
	if body != nil {
		var form []byte
		form, ct = formdata.File("file", "photo.png", body, nil)
		r = bytes.NewReader(form)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		return err
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status || !strings.Contains(string(b), contains) {
		return fmt.Errorf("%s %s: %d %.200s", method, url, resp.StatusCode, b)
	}
	return nil
}

// soakSigner is an account with a signing key and an API key on the origin.
type soakSigner struct {
	base, keyID, apiKey string
}

func newSoakSigner(t *testing.T, base string) *soakSigner {
	t.Helper()
	s := originproc.NewSigner(t, base, "soak@example.com", "Soak News")
	return &soakSigner{base: base, keyID: s.KeyID, apiKey: s.APIKey}
}

// picture is a distinct 320×240 PNG for each n.
func picture(n int) []byte {
	rnd := rand.New(rand.NewPCG(uint64(n), 7))
	img := image.NewRGBA(image.Rect(0, 0, 320, 240))
	for y := range 240 {
		for x := range 320 {
			img.Set(x, y, color.RGBA{uint8(x/8*5 + rnd.IntN(20)), uint8(y/6*5 + rnd.IntN(20)), uint8((x+y)/4 + rnd.IntN(20)), 255})
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	return buf.Bytes()
}

// trySign signs picture n and returns the signed file.
func (s *soakSigner) trySign(c *http.Client, n int) ([]byte, error) {
	body, ct := formdata.File("file", "photo.png", picture(n), map[string]string{"return_file": "true"})
	req, _ := http.NewRequest("POST", s.base+"/api/v1/sign?signing_key_id="+s.keyID, bytes.NewReader(body))
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+s.apiKey)
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 201 {
		return nil, fmt.Errorf("sign: %d %.200s", resp.StatusCode, b)
	}
	return b, nil
}

func (s *soakSigner) sign(t *testing.T, n int) []byte {
	t.Helper()
	b, err := s.trySign(http.DefaultClient, n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rss is a process's resident memory, from /proc.
func rss(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("status of %d: %v", pid, err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmRSS:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n << 10
		}
	}
	t.Fatalf("no VmRSS for %d", pid)
	return 0
}

// exited reports whether pid is gone or a zombie.
func exited(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	return err != nil || bytes.Contains(b, []byte("\nState:\tZ"))
}
