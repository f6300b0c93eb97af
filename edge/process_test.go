package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/testtool"
	"github.com/provenant/provenant/wasm/wasmtest"
)

// checkout returns the repository's root, from which the test builds,
// and a temporary directory for what it builds.
func checkout(t *testing.T) (root, dir string) {
	t.Helper()
	root, err := wasmtest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root, t.TempDir()
}

// TestSIGHUPReload runs the edge binary with a module file: --precompile
// fills a compile cache; the edge listens at once and reports when its
// verifier is ready; SIGHUP swaps
// in the file's module again; after the file is replaced by a broken
// module, SIGHUP is refused and the edge keeps running; SIGTERM stops it
// cleanly.
func TestSIGHUPReload(t *testing.T) {
	root, dir := checkout(t)
	mod, err := wasmtest.Build(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	modPath := filepath.Join(dir, "verifier.wasm")
	bin := filepath.Join(dir, "edge")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// --precompile fills a compile cache and exits; the edge then starts
	// on that cache.
	cache := filepath.Join(dir, "wazero")
	out, err := exec.Command(bin, "--precompile", "--verifier-wasm", modPath, "--cache-dir", cache).CombinedOutput()
	if err != nil || !strings.Contains(string(out), `msg="verifier module precompiled"`) {
		t.Fatalf("--precompile: %v\n%s", err, out)
	}
	if entries, err := os.ReadDir(cache); err != nil || len(entries) == 0 {
		t.Fatalf("--precompile left no compiled code in its cache: %v", err)
	}
	cmd := exec.Command(bin, "--origin", "http://127.0.0.1:1", "--listen", "127.0.0.1:0", "--admin-listen", "",
		"--verifier-wasm", modPath, "--cache-dir", cache, "--wasm-instances", "1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { testtool.Kill(cmd) })
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	wait := func(want string) {
		t.Helper()
		deadline := time.After(2 * time.Minute)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the edge exited before logging %q", want)
				}
				if strings.Contains(l, want) {
					return
				}
			case <-deadline:
				t.Fatalf("no %q in the edge's log", want)
			}
		}
	}
	// The edge listens and says it is compiling before the module is
	// ready (with an empty cache that takes tens of seconds).
	wait(`msg="verifier module compiling`)
	wait(`msg="edge listening"`)
	wait(`msg="verifier ready"`)
	_ = cmd.Process.Signal(syscall.SIGHUP)
	wait(`msg="verifier reloaded on SIGHUP"`)
	if err := os.WriteFile(modPath, mod[:len(mod)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Process.Signal(syscall.SIGHUP)
	wait(`reload on SIGHUP failed; the previous module stays`)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	wait(`msg="edge shutting down"`)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}
