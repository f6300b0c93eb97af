// Package s3test starts a throwaway S3-compatible object store for
// tests: SeaweedFS (`weed server` with its S3 gateway, credentials
// required) on loopback, its data in a temporary directory, stopped
// when the test ends. Without the weed binary the test is skipped,
// except under CI, where it fails: .ci/run builds it.
package s3test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/testtool"
	"github.com/provenant/provenant/origin/internal/blobs"
)

// The credentials the server accepts (and the only ones).
const (
	AccessKey = "provenant-test"
	SecretKey = "provenant-test-secret"
)

// Server is a running SeaweedFS with its S3 gateway.
type Server struct {
	t    testing.TB
	bin  string
	dir  string
	base int // master port; volume, filer and S3 follow; gRPC ports are +10000
	cmd  *exec.Cmd
}

// Start starts the server for t and waits until it stores objects.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := testtool.LookPath(t, "SeaweedFS; .ci/run builds it", "weed")
	dir := t.TempDir()
	cfg := fmt.Sprintf(`{"identities":[{"name":"provenant","credentials":[{"accessKey":%q,"secretKey":%q}],"actions":["Admin","Read","Write","List","Tagging"]}]}`, AccessKey, SecretKey)
	if err := os.WriteFile(filepath.Join(dir, "s3.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o700); err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, bin: bin, dir: dir, base: freeBase(t)}
	s.Restart()
	t.Cleanup(s.Stop)
	return s
}

// freeBase finds four consecutive free ports whose +10000 twins are free
// too (SeaweedFS's gRPC ports).
func freeBase(t testing.TB) int {
	for range 200 {
		base := 20000 + rand.IntN(9000)
		ok := true
		for _, p := range []int{base, base + 1, base + 2, base + 3, base + 10000, base + 10001, base + 10002, base + 10003} {
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				ok = false
				break
			}
			_ = ln.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatal("no free ports for SeaweedFS")
	return 0
}

// Endpoint is the S3 API's URL.
func (s *Server) Endpoint() string { return "http://127.0.0.1:" + strconv.Itoa(s.base+3) }

// Config is an S3Config for a bucket on this server (created at open).
func (s *Server) Config(bucket string) blobs.S3Config {
	return blobs.S3Config{Endpoint: s.Endpoint(), Bucket: bucket, AccessKey: AccessKey, SecretKey: SecretKey, CreateBucket: true, MaxRetries: 1}
}

// Stop kills the server, as a crash would; its data stays for Restart.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	testtool.Kill(s.cmd)
	s.cmd = nil
	// SeaweedFS puts its gRPC sockets in /tmp whatever its flags say.
	for d := range 4 {
		for _, port := range []int{s.base + d, s.base + 10000 + d} {
			leftovers, _ := filepath.Glob(filepath.Join(os.TempDir(), "seaweedfs-*-"+strconv.Itoa(port)+".sock"))
			for _, f := range leftovers {
				_ = os.Remove(f)
			}
		}
	}
}

// Restart starts the server (again) on its data and ports, and waits
// until its S3 gateway stores objects.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	p := func(d int) string { return strconv.Itoa(s.base + d) }
	g := func(d int) string { return strconv.Itoa(s.base + 10000 + d) }
	log, err := os.OpenFile(filepath.Join(s.dir, "weed.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		s.t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command(s.bin, "server", "-dir="+filepath.Join(s.dir, "data"), "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-master.port="+p(0), "-master.port.grpc="+g(0), "-volume.port="+p(1), "-volume.port.grpc="+g(1),
		"-filer", "-filer.port="+p(2), "-filer.port.grpc="+g(2), "-filer.localSocket="+filepath.Join(s.dir, "filer.sock"),
		"-s3", "-s3.port="+p(3), "-s3.port.grpc="+g(3), "-s3.port.iceberg=0", "-s3.port.lance=0",
		"-s3.config="+filepath.Join(s.dir, "s3.json"), "-s3.localSocket="+filepath.Join(s.dir, "s3.sock"),
		// A single master that does not resume its Raft state starts at
		// once (the topology comes back from the volume heartbeats).
		"-master.resumeState=false", "-master.electionTimeout=1s", "-master.telemetry=false", "-master.volumeSizeLimitMB=64", "-volume.max=100", "-iam=false")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start weed: %v", err)
	}
	s.cmd = cmd
	// The gateway answers before the volume server has joined: wait for
	// an object to go in.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var last error
	for ctx.Err() == nil {
		if last = s.probe(ctx); last == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	out, _ := os.ReadFile(filepath.Join(s.dir, "weed.log"))
	if len(out) > 4000 {
		out = out[len(out)-4000:]
	}
	s.t.Fatalf("SeaweedFS did not come up: %v\n%s", last, out)
}

func (s *Server) probe(ctx context.Context) error {
	resp, err := http.Get(s.Endpoint())
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := blobs.OpenS3(pctx, s.Config("s3test-probe"))
	if err != nil {
		return err
	}
	b := []byte("probe")
	sum := sha256.Sum256(b)
	return st.Put(pctx, hex.EncodeToString(sum[:]), b)
}
