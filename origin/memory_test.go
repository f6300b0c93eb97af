package main

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/origintest/originproc"
	"github.com/provenant/provenant/shared/imagex/pngtest"
)

func TestMain(m *testing.M) {
	// A test that measures the memory of a real origin process runs this
	// binary as the origin (originproc.Options.SelfExec).
	if args, ok := originproc.ChildArgs(); ok {
		os.Args = append([]string{"origin"}, args...)
		if err := run(); err != nil {
			fmt.Fprintln(os.Stderr, "origin:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// png16 returns a w×h 16-bit RGBA PNG (a horizontal gradient, every row
// after the first filtered "Up" to zeros), written row by row: a few hundred
// KB that decode to 8·w·h bytes.
func png16(t *testing.T, w, h int) []byte {
	t.Helper()
	pw := pngtest.New()
	pw.IHDR(uint32(w), uint32(h), 16, 6, 0) // 16-bit RGBA
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	first := make([]byte, 1+8*w)
	for x := 0; x < w; x++ {
		v := uint16(x * 65535 / w)
		p := first[1+8*x:]
		binary.BigEndian.PutUint16(p[0:], v)
		binary.BigEndian.PutUint16(p[2:], 65535-v)
		binary.BigEndian.PutUint16(p[4:], v/2)
		binary.BigEndian.PutUint16(p[6:], 65535)
	}
	up := make([]byte, 1+8*w)
	up[0] = 2
	for y := 0; y < h; y++ {
		row := up
		if y == 0 {
			row = first
		}
		if _, err := zw.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	pw.Chunk("IDAT", z.Bytes())
	pw.Chunk("IEND", nil)
	return pw.Bytes()
}

// procBytes reads a memory field (VmRSS, VmHWM) of /proc/PID/status.
func procBytes(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read status of the origin: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == field+":" && f[2] == "kB" {
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestDecodeMemoryBound is the hostile test: 8 concurrent public verifies
// of a 441 KB PNG declaring 7000×7000 16-bit RGBA (392 MB decoded, under the
// 50 MP and 512 MiB limits) against a real origin with --decode-memory 1GiB.
// Each answer is 200 or 503 decode_capacity with Retry-After; the origin's
// peak resident memory stays under the budget plus the 512 MiB headroom of
// its soft memory limit; and once the requests are answered the memory
// returns to near the idle level. Before the budget the same load peaked at
// 5.4 GB and kept it for minutes; with an unbounded budget the test fails.
func TestDecodeMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes gigabytes in a child process")
	}
	const (
		budget   = 1 << 30
		headroom = memoryHeadroom
		clients  = 8
	)
	img := png16(t, 7000, 7000)
	o := originproc.Start(t, originproc.Options{SelfExec: true,
		Args: []string{"--admin-listen", "127.0.0.1:0", "--chain-rpc-listen", "127.0.0.1:0", "--decode-memory", "1GiB"}})
	base, pid := o.URL, o.Pid
	idle := procBytes(t, pid, "VmRSS")

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", "big.png")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(img); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		status     int
		code       string
		retryAfter string
		err        error
	}
	answers := make(chan answer, clients)
	for i := 0; i < clients; i++ {
		go func() {
			req, err := http.NewRequest("POST", base+"/api/v1/verify", bytes.NewReader(body.Bytes()))
			if err != nil {
				answers <- answer{err: err}
				return
			}
			req.Header.Set("Content-Type", mw.FormDataContentType())
			resp, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
			if err != nil {
				answers <- answer{err: err}
				return
			}
			defer resp.Body.Close()
			var p struct {
				Code string `json:"code"`
			}
			b, err := io.ReadAll(resp.Body)
			if err == nil && resp.StatusCode != 200 {
				err = json.Unmarshal(b, &p)
			}
			answers <- answer{status: resp.StatusCode, code: p.Code, retryAfter: resp.Header.Get("Retry-After"), err: err}
		}()
	}
	ok, busy := 0, 0
	for i := 0; i < clients; i++ {
		a := <-answers
		switch {
		case a.err != nil:
			t.Errorf("verify: %v", a.err)
		case a.status == 200:
			ok++
		case a.status == 503 && a.code == "decode_capacity" && a.retryAfter != "":
			busy++
		default:
			t.Errorf("verify answered %d %q (Retry-After %q), want 200 or 503 decode_capacity with Retry-After", a.status, a.code, a.retryAfter)
		}
	}
	peak := procBytes(t, pid, "VmHWM")
	t.Logf("idle RSS %d MiB, peak RSS %d MiB; %d verified, %d answered decode_capacity", idle>>20, peak>>20, ok, busy)
	if ok == 0 {
		t.Error("no verify succeeded; the budget should admit two of these images at a time")
	}
	if limit := int64(budget + headroom); peak > limit {
		t.Errorf("peak RSS %d MiB, want at most the budget plus headroom, %d MiB", peak>>20, limit>>20)
	}
	// The pixel buffers go back to the OS once the decodes are idle.
	want := idle + 256<<20
	deadline := time.Now().Add(30 * time.Second)
	for {
		rss := procBytes(t, pid, "VmRSS")
		if rss <= want {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("RSS still %d MiB 30 s after the last answer, want at most %d MiB (idle %d MiB)", rss>>20, want>>20, idle>>20)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1073741824", 1 << 30, true},
		{"512MiB", 512 << 20, true},
		{"1GiB", 1 << 30, true},
		{"2gib", 2 << 30, true},
		{"1500MB", 1_500_000_000, true},
		{"64 KiB", 64 << 10, true},
		{"", 0, false},
		{"GiB", 0, false},
		{"1.5GiB", 0, false},
		{"12 parsecs", 0, false},
		{"99999999999TiB", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseSize(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("parseSize(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
			}
		})
	}
}
