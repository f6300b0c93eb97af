// Package originproc runs a real origin as an operating-system process on
// a loopback port, for tests that need the whole binary: its flags, its
// signals, its memory as the kernel counts it. It is the process twin of
// package origintest (which runs the origin inside the test) and, unlike
// it, links none of the origin: a test of another component (the edge)
// stays small. It is test support: nothing in a production binary
// imports it.
package originproc

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// childEnv carries the origin's arguments to a test binary started to be
// the origin (Options.SelfExec), JSON-encoded.
const childEnv = "PROVENANT_ORIGINPROC_ARGS"

// startTimeout bounds how long an origin may take to listen: a cold
// embedded chain on a loaded machine takes seconds, never minutes.
const startTimeout = 2 * time.Minute

// Build compiles the origin command of the module rooted at root into
// dir and returns the executable's path.
func Build(root, dir string) (string, error) {
	bin := filepath.Join(dir, "origin")
	cmd := exec.Command("go", "build", "-o", bin, "./origin")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./origin: %w\n%s", err, out)
	}
	return bin, nil
}

// Options says which executable is the origin and how it runs.
type Options struct {
	// Binary is the origin executable (see Build).
	Binary string
	// SelfExec runs the test binary itself as the origin instead of
	// Binary: its TestMain must hand over to the origin's main when
	// ChildArgs says so. A package's own main is tested that way.
	SelfExec bool
	// Args are flags after the defaults: a loopback listener on a free
	// port, no admin or chain RPC listener, info logging and a fresh data
	// directory. A flag given again here wins.
	Args []string
	// AddressSpace, when positive, is the origin's RLIMIT_AS (soft and
	// hard), set before it runs (prlimit(1) execs it; without prlimit
	// the limit is set on the new process at once). Its ffmpeg children
	// inherit it and lower it to their own. A process over it fails to
	// map memory instead of growing, so a regression fails the test, not
	// the machine.
	AddressSpace int64

	// Env adds environment variables (NAME=value): the settings that have
	// no flag, such as PROVENANT_MASTER_KEY.
	Env []string
}

// Origin is a running origin process, stopped by the test's cleanup.
type Origin struct {
	// URL is the base URL, "http://127.0.0.1:<port>".
	URL string
	// Pid is the process id (its /proc entry has the origin's memory).
	Pid int

	stop func()
}

// Stop sends SIGTERM and waits for the process to exit; later calls
// (and the cleanup's) do nothing.
func (o *Origin) Stop() { o.stop() }

// Start runs the origin and returns once it listens. The environment is
// the test's without PROVENANT_ variables, GOMEMLIMIT and GOGC, so that
// only Args configure the origin (it sets its own memory limit).
func Start(t testing.TB, opt Options) *Origin {
	t.Helper()
	args := append([]string{"--listen", "127.0.0.1:0", "--admin-listen", "", "--chain-rpc-listen", "",
		"--log-level", "info", "--data-dir", t.TempDir()}, opt.Args...)
	var cmd *exec.Cmd
	var env []string
	var argv []string
	switch {
	case opt.SelfExec:
		enc, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		argv = []string{os.Args[0], "-test.run=^$"}
		env = append(env, childEnv+"="+string(enc))
	case opt.Binary != "":
		argv = append([]string{opt.Binary}, args...)
	default:
		t.Fatal("originproc: no Binary and no SelfExec")
	}
	prlimit, _ := exec.LookPath("prlimit")
	if opt.AddressSpace > 0 && prlimit != "" {
		argv = append([]string{prlimit, fmt.Sprintf("--as=%d:%d", opt.AddressSpace, opt.AddressSpace), "--"}, argv...)
	}
	cmd = exec.Command(argv[0], argv[1:]...)
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "PROVENANT_") && !strings.HasPrefix(e, "GOMEMLIMIT=") && !strings.HasPrefix(e, "GOGC=") {
			env = append(env, e)
		}
	}
	cmd.Env = append(env, opt.Env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if opt.AddressSpace > 0 && prlimit == "" {
		lim := unix.Rlimit{Cur: uint64(opt.AddressSpace), Max: uint64(opt.AddressSpace)}
		if err := unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_AS, &lim, nil); err != nil {
			_ = cmd.Process.Kill()
			t.Fatalf("originproc: RLIMIT_AS: %v", err)
		}
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		})
	}
	t.Cleanup(stop)
	addr := make(chan string, 1)
	var mu sync.Mutex
	var tail []string
	go func() {
		re := regexp.MustCompile(`msg="origin listening" addr=(\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			tail = append(tail[max(0, len(tail)-20):], sc.Text())
			mu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case a := <-addr:
		return &Origin{URL: "http://" + a, Pid: cmd.Process.Pid, stop: stop}
	case <-time.After(startTimeout):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("originproc: the origin did not start listening; log tail:\n%s", strings.Join(tail, "\n"))
	}
	return nil
}

// ChildArgs reports whether this test binary was started by Start with
// SelfExec, and then the origin's arguments (without the program name).
// TestMain calls it first and, when ok, runs the origin's main with them
// instead of the tests.
func ChildArgs() (args []string, ok bool) {
	v, ok := os.LookupEnv(childEnv)
	if !ok {
		return nil, false
	}
	if err := json.Unmarshal([]byte(v), &args); err != nil {
		fmt.Fprintf(os.Stderr, "originproc: %s: %v\n", childEnv, err)
		os.Exit(2)
	}
	return args, true
}
