package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/testtool"
	"github.com/provenant/provenant/shared/clock"
)

const (
	crashChildEnv = "PROVENANT_WEBHOOK_CRASH_CHILD_DIR"
	crashEvents   = 20
)

// TestMain lets the test binary double as the crash-test child: with
// crashChildEnv set it runs an origin on that data dir and never returns
// (the parent kills it with SIGKILL).
func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		runCrashChild(dir)
		return
	}
	if dir := os.Getenv(idemCrashChildEnv); dir != "" {
		runIdemCrashChild(dir)
		return
	}
	os.Exit(m.Run())
}

func runCrashChild(dir string) {
	ref := &serverRef{}
	wc := loopbackWebhooks()
	wc.Timeout = time.Minute // the receiver hangs: attempts stay in flight until the kill
	srv, err := newServer(Config{
		DataDir:  dir,
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Password: cheapPassword,
		Webhooks: wc,
	}, deps{routes: publishRoute(ref, time.Now)})
	if err == nil {
		ref.set(srv)
	}
	serveChild(srv, err)
}

// serveChild is the end of a crash-test child: it serves srv (built with
// err) on a loopback port it reports on stdout as "ADDR host:port" for
// startCrashChild, and never returns; a child that could not start exits 2.
func serveChild(srv *Server, err error) {
	var ln net.Listener
	if err == nil {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	fmt.Printf("ADDR %s\n", ln.Addr())
	_ = srv.Serve(ln)
	select {}
}

// crashReceiver hangs every request until its client goes away while
// hanging is set, and answers 200 otherwise; it records (seq, delivery id)
// for both phases.
type crashReceiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	hanging bool
	before  map[int]string // seq -> delivery id seen while hanging
	after   map[int]string // seq -> delivery id acknowledged with 200
	gotOne  chan struct{}
	allDone chan struct{}
}

func newCrashReceiver(t *testing.T) *crashReceiver {
	c := &crashReceiver{hanging: true, before: map[int]string{}, after: map[int]string{},
		gotOne: make(chan struct{}), allDone: make(chan struct{})}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var env struct {
			Data struct {
				Seq int `json:"seq"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &env); err != nil {
			w.WriteHeader(400)
			return
		}
		id := r.Header.Get("X-Service-Delivery")
		c.mu.Lock()
		if c.hanging {
			if len(c.before) == 0 {
				close(c.gotOne)
			}
			c.before[env.Data.Seq] = id
			c.mu.Unlock()
			<-r.Context().Done() // until the origin dies
			return
		}
		if prev, ok := c.after[env.Data.Seq]; ok && prev != id {
			t.Errorf("seq %d delivered with ids %s and %s", env.Data.Seq, prev, id)
		}
		c.after[env.Data.Seq] = id
		if len(c.after) == crashEvents {
			select {
			case <-c.allDone:
			default:
				close(c.allDone)
			}
		}
		c.mu.Unlock()
		w.WriteHeader(200)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// TestWebhookDeliveriesSurviveKill9 publishes events through a child
// origin, kills it with SIGKILL while deliveries are queued and in flight,
// restarts an origin on the same data dir, and checks that every event is
// delivered, with the delivery id it had before the crash.
func TestWebhookDeliveriesSurviveKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a subprocess")
	}
	dir := t.TempDir()
	rcv := newCrashReceiver(t)

	// Set up the account, key and webhook, then stop cleanly.
	setup := startWebhookServer(t, dir)
	key := setup.apiKeyFor("crash@example.com")
	r := setup.do("POST", "/api/v1/webhooks", key, map[string]any{"url": rcv.srv.URL + "/hook"})
	setup.mustStatus(r, 201, "create webhook")
	hook, _ := r.json(t)["id"].(string)
	setup.stop()

	// Child origin on the same dir.
	child := startCrashChild(t, crashChildEnv, dir)
	for i := 0; i < crashEvents; i++ {
		r := child.doRaw("POST", "/test/publish?type=content.signed", key, fmt.Sprintf(`{"seq":%d}`, i), "application/json")
		child.mustStatus(r, 204, "publish on child")
	}
	select {
	case <-rcv.gotOne:
	case <-time.After(10 * time.Second):
		t.Fatal("child sent no delivery within 10s")
	}
	child.kill9() // SIGKILL

	rcv.mu.Lock()
	rcv.hanging = false
	before := len(rcv.before)
	rcv.mu.Unlock()
	t.Logf("deliveries in flight at the kill: %d of %d (the rest were queued)", before, crashEvents)

	// Restart in-process on the same dir; the clock is after the child's.
	restarted := startServer(t, dir, clock.NewFake(time.Now().Add(time.Second)), func(c *Config, _ *deps) {
		c.Webhooks = loopbackWebhooks()
	})
	select {
	case <-rcv.allDone:
	case <-time.After(20 * time.Second):
		rcv.mu.Lock()
		t.Fatalf("after restart only %d of %d events delivered", len(rcv.after), crashEvents)
	}
	rcv.mu.Lock()
	for seq, id := range rcv.before {
		if got := rcv.after[seq]; got != id {
			t.Errorf("seq %d: delivery id before the crash %s, after %s; want the same", seq, id, got)
		}
	}
	rcv.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	owner := accountOf(t, restarted, key)
	page, err := restarted.srv.webhooks.ListDeliveries(ctx, owner, hook, "", "", 100)
	if err != nil || len(page.Items) != crashEvents {
		t.Fatalf("deliveries after restart = %d, %v; want %d", len(page.Items), err, crashEvents)
	}
}

// accountOf returns the account id behind an API key.
func accountOf(t *testing.T, ts *testServer, key string) string {
	t.Helper()
	r := ts.do("GET", "/test/api-key-only", key, nil)
	ts.mustStatus(r, 200, "whoami")
	id, _ := r.json(t)["account_id"].(string)
	return id
}

// crashChild is an origin running in a child process of this test binary
// on a data dir, for the tests that kill it mid-work.
type crashChild struct {
	*testServer
	cmd    *exec.Cmd
	killed bool
}

// startCrashChild starts the child origin on dir, telling it by the
// environment variable env (whose TestMain branch runs the origin), and
// returns once it has reported its address; the child is killed at
// cleanup if the test has not killed it.
func startCrashChild(t *testing.T, env, dir string) *crashChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &crashChild{cmd: cmd}
	t.Cleanup(func() {
		if !c.killed {
			testtool.Kill(cmd)
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ADDR ") {
		t.Fatalf("child did not report its address: %q, %v", line, err)
	}
	c.testServer = &testServer{t: t, base: "http://" + strings.TrimSpace(strings.TrimPrefix(line, "ADDR "))}
	return c
}

// signerForChild makes a signer on a new data dir with an origin it then
// stops, for a crash child to run on that dir; it skips the test under
// -short, since the child is a subprocess.
func signerForChild(t *testing.T, email string) (dir string, s signer) {
	t.Helper()
	if testing.Short() {
		t.Skip("spawns a subprocess")
	}
	dir = t.TempDir()
	setup := startServer(t, dir, nil)
	s = setup.newSigner(email)
	setup.stop()
	return dir, s
}

// diedBeforeAnswering waits for a child that kills itself at the point
// under test (what), and fails the test unless SIGKILL ended it and the
// request in flight, whose status would arrive on answered, got no answer.
func (c *crashChild) diedBeforeAnswering(answered <-chan int, what string) {
	c.t.Helper()
	state, err := c.cmd.Process.Wait()
	if err != nil {
		c.t.Fatal(err)
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		c.t.Fatalf("child ended with %v, want killed by SIGKILL %s", state, what)
	}
	select {
	case code := <-answered:
		c.t.Fatalf("the first request was answered (%d) although the origin died before answering", code)
	case <-time.After(100 * time.Millisecond):
	}
}

// kill9 kills the child with SIGKILL, whatever it is doing, and reaps it.
func (c *crashChild) kill9() {
	c.t.Helper()
	if err := c.cmd.Process.Kill(); err != nil {
		c.t.Fatal(err)
	}
	_ = c.cmd.Wait()
	c.killed = true
}
