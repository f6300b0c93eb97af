package blobs

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// ErrUnavailable: the object store could not be reached or answered with
// a server error. Nothing was stored (a Put that returns it left no
// object the record could name); the same call may succeed later.
var ErrUnavailable = errors.New("blobs: object store unavailable")

// S3Config configures an S3 store.
type S3Config struct {
	// Endpoint is the S3 API's URL, e.g. https://s3.eu-west-1.amazonaws.com
	// or http://10.0.0.5:8333 (scheme and host only).
	Endpoint string
	// Bucket holds the blobs; it must exist unless CreateBucket is set.
	Bucket string
	// Prefix is prepended to every object key, e.g. "provenant/"; the key of
	// a blob is <Prefix><first 2 hex digits>/<sum>, the layout of Dir.
	Prefix string
	// Region is the bucket's region ("" lets the client discover it).
	Region string
	// AccessKey and SecretKey are the static credentials. Both empty: the
	// client's chain (AWS_* environment variables, the shared credentials
	// file, the instance's IAM role).
	AccessKey, SecretKey string
	// CreateBucket creates the bucket at open when it is missing (tests
	// and single-tenant servers; operators usually create it themselves).
	CreateBucket bool
	// MaxRetries bounds the client's retries of one request; zero means 3,
	// so that an outage answers within the request's deadline.
	MaxRetries int
	// Transport overrides the HTTP transport (tests, custom CAs).
	Transport http.RoundTripper
}

// S3 is a Store on an S3-compatible object store. An object is written
// whole by one PUT (or a multipart upload completed only once its digest
// is checked), so a reader sees a blob either absent or complete, and
// Put returns nil only once the store acknowledged the write, which S3
// gives only for a durably stored object.
type S3 struct {
	c      *minio.Client
	bucket string
	prefix string
	region string
	create bool
}

var _ Store = (*S3)(nil)

// s3PartSize is the part size of a streamed upload: each upload in
// flight holds one part in memory. 8 MiB parts cover files up to 80 GB
// within S3's 10,000 parts.
const s3PartSize = 8 << 20

// OpenS3 is NewS3 and Check: a store whose bucket was there at open.
func OpenS3(ctx context.Context, cfg S3Config) (*S3, error) {
	s, err := NewS3(cfg)
	if err != nil {
		return nil, err
	}
	if err := s.Check(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// NewS3 returns the store of cfg without contacting it (see Check).
func NewS3(cfg S3Config) (*S3, error) {
	if cfg.Bucket == "" {
		return nil, errors.New("blobs: S3 bucket is required")
	}
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("blobs: S3 endpoint %q: want http(s)://host[:port]", cfg.Endpoint)
	}
	var creds *credentials.Credentials
	if cfg.AccessKey != "" || cfg.SecretKey != "" {
		creds = credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, "")
	} else {
		creds = credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{}, &credentials.FileAWSCredentials{}, &credentials.IAM{},
		})
	}
	retries := cfg.MaxRetries
	if retries <= 0 {
		retries = 3
	}
	c, err := minio.New(u.Host, &minio.Options{Creds: creds, Secure: u.Scheme == "https", Region: cfg.Region,
		BucketLookup: minio.BucketLookupPath, MaxRetries: retries, Transport: cfg.Transport})
	if err != nil {
		return nil, fmt.Errorf("blobs: S3 client: %w", err)
	}
	return &S3{c: c, bucket: cfg.Bucket, prefix: cfg.Prefix, region: cfg.Region, create: cfg.CreateBucket}, nil
}

// Check asks the store whether the bucket exists (creating it when
// S3Config.CreateBucket is set): an error wrapping ErrUnavailable when
// the store does not answer, another error when the bucket is missing or
// the credentials are refused.
func (s *S3) Check(ctx context.Context) error {
	ok, err := s.c.BucketExists(ctx, s.bucket)
	if err != nil {
		return fmt.Errorf("blobs: S3 bucket %s: %w", s.bucket, classify(err))
	}
	if ok {
		return nil
	}
	if !s.create {
		return fmt.Errorf("blobs: S3 bucket %s does not exist", s.bucket)
	}
	if err := s.c.MakeBucket(ctx, s.bucket, minio.MakeBucketOptions{Region: s.region}); err != nil {
		if resp := minio.ToErrorResponse(err); resp.Code != "BucketAlreadyOwnedByYou" && resp.Code != "BucketAlreadyExists" {
			return fmt.Errorf("blobs: create S3 bucket %s: %w", s.bucket, classify(err))
		}
	}
	return nil
}

func (s *S3) key(sum string) string { return s.prefix + sum[:2] + "/" + sum }

// Put uploads b in one PUT with its MD5, which the store checks before
// acknowledging, and returns once the store acknowledged it.
func (s *S3) Put(ctx context.Context, sum string, b []byte) error {
	if !validSum(sum) {
		return fmt.Errorf("blobs: %q is not a SHA-256 digest", sum)
	}
	if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
		return ErrDigestMismatch
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m := md5.Sum(b)
	_, err := minio.Core{Client: s.c}.PutObject(ctx, s.bucket, s.key(sum), bytes.NewReader(b), int64(len(b)),
		base64.StdEncoding.EncodeToString(m[:]), "", minio.PutObjectOptions{ContentType: "application/octet-stream"})
	if err != nil {
		return fmt.Errorf("blobs: put %s: %w", sum, classify(err))
	}
	return nil
}

// PutReader streams r as a multipart upload, hashing it on the way, and
// completes the upload only when the digest is sum: until then no object
// exists under the blob's key, and a mismatch or an error aborts the
// upload. Memory is one part (8 MiB) whatever the size.
func (s *S3) PutReader(ctx context.Context, sum string, r io.Reader) error {
	if !validSum(sum) {
		return fmt.Errorf("blobs: %q is not a SHA-256 digest", sum)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	core := minio.Core{Client: s.c}
	key := s.key(sum)
	id, err := core.NewMultipartUpload(ctx, s.bucket, key, minio.PutObjectOptions{ContentType: "application/octet-stream"})
	if err != nil {
		return fmt.Errorf("blobs: put %s: %w", sum, classify(err))
	}
	done := false
	defer func() {
		if !done {
			// With a context of its own: the request's may be what ended.
			actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
			defer cancel()
			_ = core.AbortMultipartUpload(actx, s.bucket, key, id)
		}
	}()
	h := sha256.New()
	buf := make([]byte, s3PartSize)
	var parts []minio.CompletePart
	src := ctxReader{ctx, r}
	for n := 1; ; n++ {
		k, rerr := io.ReadFull(src, buf)
		if rerr != nil && rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
			return fmt.Errorf("blobs: read %s: %w", sum, rerr)
		}
		if k > 0 || n == 1 {
			h.Write(buf[:k])
			m := md5.Sum(buf[:k])
			p, err := core.PutObjectPart(ctx, s.bucket, key, id, n, bytes.NewReader(buf[:k]), int64(k),
				minio.PutObjectPartOptions{Md5Base64: base64.StdEncoding.EncodeToString(m[:])})
			if err != nil {
				return fmt.Errorf("blobs: put %s part %d: %w", sum, n, classify(err))
			}
			parts = append(parts, minio.CompletePart{PartNumber: n, ETag: p.ETag})
		}
		if rerr != nil {
			break
		}
	}
	if hex.EncodeToString(h.Sum(nil)) != sum {
		return ErrDigestMismatch
	}
	if _, err := core.CompleteMultipartUpload(ctx, s.bucket, key, id, parts, minio.PutObjectOptions{}); err != nil {
		return fmt.Errorf("blobs: complete %s: %w", sum, classify(err))
	}
	done = true
	return nil
}

// abortTimeout bounds the cleanup of a failed multipart upload; parts
// an abort could not remove are the bucket's lifecycle rule's to expire
// (docs/operations.md).
const abortTimeout = 10 * time.Second

// Open stats the object for its size; reads are ranged GETs, one stream
// reused while the reads are sequential (a Range response or a whole
// file read in chunks costs one GET).
func (s *S3) Open(ctx context.Context, sum string) (Blob, error) {
	if !validSum(sum) {
		return nil, ErrNotFound
	}
	info, err := s.c.StatObject(ctx, s.bucket, s.key(sum), minio.StatObjectOptions{})
	if err != nil {
		if isNotFound(err) {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("blobs: open %s: %w", sum, classify(err))
	}
	return &s3Blob{s: s, ctx: context.WithoutCancel(ctx), key: s.key(sum), etag: info.ETag, size: info.Size}, nil
}

// s3Blob reads an object by ranges. The ETag seen at open pins the
// version read (If-Match), though a content-addressed key never changes.
type s3Blob struct {
	s    *S3
	ctx  context.Context
	key  string
	etag string
	size int64

	mu     sync.Mutex
	body   io.ReadCloser
	pos    int64 // offset of body's next byte
	closed bool
}

func (b *s3Blob) Size() int64 { return b.size }

// ReadAt continues the open stream when off is where it stands, and
// opens a ranged GET from off to the end otherwise.
func (b *s3Blob) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("blobs: negative offset")
	}
	if off >= b.size {
		return 0, io.EOF
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, errors.New("blobs: read of a closed blob")
	}
	if b.body == nil || b.pos != off {
		if b.body != nil {
			_ = b.body.Close()
			b.body = nil
		}
		opts := minio.GetObjectOptions{}
		if err := opts.SetRange(off, b.size-1); err != nil {
			return 0, err
		}
		if b.etag != "" {
			if err := opts.SetMatchETag(b.etag); err != nil {
				return 0, err
			}
		}
		body, _, _, err := minio.Core{Client: b.s.c}.GetObject(b.ctx, b.s.bucket, b.key, opts)
		if err != nil {
			return 0, fmt.Errorf("blobs: read %s: %w", b.key, classify(err))
		}
		b.body, b.pos = body, off
	}
	want := min(int64(len(p)), b.size-off)
	n, err := io.ReadFull(b.body, p[:want])
	b.pos += int64(n)
	if err != nil {
		_ = b.body.Close()
		b.body = nil
		return n, fmt.Errorf("blobs: read %s: %w", b.key, classify(err))
	}
	if int64(n) < int64(len(p)) {
		return n, io.EOF
	}
	return n, nil
}

func (b *s3Blob) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	if b.body != nil {
		err := b.body.Close()
		b.body = nil
		return err
	}
	return nil
}

func isNotFound(err error) bool {
	switch minio.ToErrorResponse(err).Code {
	case "NoSuchKey", "NotFound":
		return true
	}
	return minio.ToErrorResponse(err).StatusCode == http.StatusNotFound
}

// classify wraps err with ErrUnavailable when it says the store is down
// or failing (no connection, a timeout, a 5xx, throttling), so callers
// answer 503 rather than 500; other errors (credentials, a missing
// bucket) are configuration faults and stay as they are.
func classify(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var ne net.Error
	var oe *net.OpError
	var ue *url.Error
	switch {
	case errors.As(err, &oe), errors.As(err, &ue), errors.As(err, &ne),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	resp := minio.ToErrorResponse(err)
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests ||
		resp.Code == "SlowDown" || resp.Code == "ServiceUnavailable" || resp.Code == "InternalError" ||
		strings.Contains(err.Error(), "connection refused") {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return err
}
