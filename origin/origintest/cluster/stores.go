package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/provenant/provenant/origin/internal/blobs"
)

// The object store's credentials, the only ones it accepts, and the
// bucket every origin keeps its signed files in.
const (
	S3AccessKey = "provenant-cluster"
	S3SecretKey = "provenant-cluster-secret"
	S3Bucket    = "provenant-files"
)

// ObjectStore is SeaweedFS (master, volume server, filer and S3 gateway
// in one `weed server`) on its own host: the installation's one bucket
// of signed files.
type ObjectStore struct {
	// Endpoint is its S3 API URL.
	Endpoint string
	// Host is the object store's host.
	Host *Host

	base int // master port; volume, filer and S3 follow; gRPC ports are +10000
	mu   sync.Mutex
	proc *Proc
}

// ObjectStoreAvailable reports why no object store can run here, or nil.
func ObjectStoreAvailable() error {
	return installed(goBinPath("weed"), "cluster: weed (SeaweedFS) not found (.ci/run builds it into $GOPATH/bin)")
}

// StartObjectStore starts SeaweedFS on a new host "s3", creates the
// bucket and waits until an object goes in.
func StartObjectStore(ctx context.Context, n *Net) (*ObjectStore, error) {
	h, err := n.addServiceHost("s3", ObjectStoreAvailable)
	if err != nil {
		return nil, err
	}
	cfg := fmt.Sprintf(`{"identities":[{"name":"provenant","credentials":[{"accessKey":%q,"secretKey":%q}],"actions":["Admin","Read","Write","List","Tagging"]}]}`, S3AccessKey, S3SecretKey)
	if err := os.WriteFile(filepath.Join(h.Dir, "s3.json"), []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(h.Dir, "data"), 0o700); err != nil {
		return nil, err
	}
	// The host has its ports to itself, but SeaweedFS names unix sockets
	// in the shared /tmp after its ports: a random base keeps two
	// installations on one machine apart.
	s := &ObjectStore{Host: h, base: 20000 + rand.IntN(9000)}
	s.Endpoint = "http://" + h.Addr(s.base+3)
	return s, s.Start(ctx)
}

// Config is the S3 settings of the installation's bucket.
func (s *ObjectStore) Config() blobs.S3Config {
	return blobs.S3Config{Endpoint: s.Endpoint, Bucket: S3Bucket, AccessKey: S3AccessKey, SecretKey: S3SecretKey, MaxRetries: 1}
}

// Start starts SeaweedFS (again, after Crash) on its data, creates the
// bucket if it is missing, and waits until an object goes in.
func (s *ObjectStore) Start(ctx context.Context) error {
	h := s.Host
	p := func(d int) string { return strconv.Itoa(s.base + d) }
	g := func(d int) string { return strconv.Itoa(s.base + 10000 + d) }
	proc, err := h.Start(StartOptions{Env: []string{"TMPDIR=" + h.Dir}}, goBinPath("weed"), "server",
		"-dir="+filepath.Join(h.Dir, "data"), "-ip="+h.IP, "-ip.bind="+h.IP,
		"-master.port="+p(0), "-master.port.grpc="+g(0), "-volume.port="+p(1), "-volume.port.grpc="+g(1),
		"-filer", "-filer.port="+p(2), "-filer.port.grpc="+g(2), "-filer.localSocket="+filepath.Join(h.Dir, "filer.sock"),
		"-s3", "-s3.port="+p(3), "-s3.port.grpc="+g(3), "-s3.port.iceberg=0", "-s3.port.lance=0",
		"-s3.config="+filepath.Join(h.Dir, "s3.json"), "-s3.localSocket="+filepath.Join(h.Dir, "s3.sock"),
		// A single master that does not resume its Raft state starts at
		// once (the topology comes back from the volume heartbeats).
		"-master.resumeState=false", "-master.electionTimeout=1s", "-master.telemetry=false",
		"-master.volumeSizeLimitMB=64", "-volume.max=100", "-iam=false")
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.proc = proc
	s.mu.Unlock()
	// The gateway answers before the volume server has joined: wait for
	// an object to go in.
	return waitUp(ctx, 90*time.Second, proc, "weed", func() error { return s.probe(ctx) })
}

func (s *ObjectStore) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cfg := s.Config()
	cfg.CreateBucket = true
	st, err := blobs.OpenS3(ctx, cfg)
	if err != nil {
		return err
	}
	b := []byte("cluster probe")
	sum := sha256.Sum256(b)
	return st.Put(ctx, hex.EncodeToString(sum[:]), b)
}

// Crash SIGKILLs the object store's processes; its data stays for Start.
func (s *ObjectStore) Crash() {
	s.Host.Crash()
	for d := range 4 {
		for _, port := range []int{s.base + d, s.base + 10000 + d} {
			for _, dir := range []string{os.TempDir(), s.Host.Dir} {
				leftovers, _ := filepath.Glob(filepath.Join(dir, "seaweedfs-*-"+strconv.Itoa(port)+".sock"))
				for _, f := range leftovers {
					_ = os.Remove(f)
				}
			}
		}
	}
}

// Redis is redis-server on its own host: the installation's one
// rate-limit store. It keeps nothing on disk (the limits' windows are
// short; a restart forgets them).
type Redis struct {
	// URL is its client URL, for --ratelimit-redis.
	URL string
	// Host is Redis's host.
	Host *Host
}

// RedisAvailable reports why no Redis can run here, or nil.
func RedisAvailable() error {
	return installed(redisPath(), "cluster: redis-server not found (Debian package redis-server)")
}

func redisPath() string {
	for _, name := range []string{"redis-server", "valkey-server"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// RedisPort is the port Redis listens on.
const RedisPort = 6379

// StartRedis starts redis-server on a new host "redis".
func StartRedis(ctx context.Context, n *Net) (*Redis, error) {
	h, err := n.addServiceHost("redis", RedisAvailable)
	if err != nil {
		return nil, err
	}
	r := &Redis{URL: "redis://" + h.Addr(RedisPort) + "/0", Host: h}
	return r, r.Start(ctx)
}

// Start starts redis-server (again, after Host.Crash: empty) and waits
// until it accepts connections.
func (r *Redis) Start(ctx context.Context) error {
	// The network is private to the installation: no password, and
	// protected mode (loopback only without one) off.
	p, err := r.Host.Start(StartOptions{}, redisPath(), "--bind", r.Host.IP, "--port", strconv.Itoa(RedisPort),
		"--protected-mode", "no", "--save", "", "--appendonly", "no", "--dir", r.Host.Dir)
	if err != nil {
		return err
	}
	return waitUp(ctx, 30*time.Second, p, "redis-server", func() error {
		c, err := net.DialTimeout("tcp", r.Host.Addr(RedisPort), time.Second)
		if err != nil {
			return err
		}
		return c.Close()
	})
}

// StopObjectStore SIGKILLs the object store for hold; the repair starts
// it again on its data. Signs meanwhile answer 503 storage_unavailable
// (no record without its file), verifies go on.
func StopObjectStore(hold time.Duration) Fault {
	return Fault{Name: fmt.Sprintf("stop the object store for %v", hold), Hold: hold,
		Inject: func(ctx context.Context, inst *Installation) (func(context.Context) error, error) {
			inst.S3.Crash()
			return inst.S3.Start, nil
		}}
}
