package server

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/testtool"
	"github.com/provenant/provenant/origin/internal/video"
	"github.com/provenant/provenant/shared/record"
)

// videoClip generates an H.264 clip with an AAC tone from a lavfi source
// (mandelbrot: it moves, so frames differ) with temporal noise; skipped
// when ffmpeg is missing outside CI.
func videoClip(t *testing.T, source string, secs string) []byte {
	t.Helper()
	testtool.LookPath(t, "apt-get install ffmpeg", "ffmpeg")
	p := filepath.Join(t.TempDir(), "clip.mp4")
	src := source + "=size=640x360:rate=30"
	if source == "mandelbrot" {
		src += ",trim=duration=" + secs
	} else {
		src += ":duration=" + secs
	}
	runFFmpeg(t, "-f", "lavfi", "-i", src, "-f", "lavfi", "-i", "sine=frequency=440:duration="+secs,
		"-vf", "noise=alls=6:allf=t:all_seed=7,format=yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-crf", "20",
		"-c:a", "aac", "-shortest", p)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func runFFmpeg(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command("ffmpeg", append([]string{"-hide_banner", "-nostdin", "-v", "error", "-y"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg: %v\n%s", err, out)
	}
}

// edit applies ffmpeg output args to b and returns the result (ext picks
// the container).
func edit(t *testing.T, b []byte, ext string, args ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.mp4"), filepath.Join(dir, "out"+ext)
	if err := os.WriteFile(in, b, 0o600); err != nil {
		t.Fatal(err)
	}
	runFFmpeg(t, append(append([]string{"-i", in}, args...), out)...)
	o, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestVideoSignVerify signs a clip through the API, downloads the kept
// file, and verifies it as is and after the edits platforms make: each
// is authentic and names the record, a trimmed clip says where it starts;
// an unrelated clip is not authentic; bad files get their problem codes.
func TestVideoSignVerify(t *testing.T) {
	clip := videoClip(t, "mandelbrot", "10")
	ts := startServer(t, "", nil)
	s := ts.newSigner("video@example.com")
	r := ts.idemSign(s, "7d1e-video-sign", clip, map[string]string{"return_file": "true"})
	ts.mustStatus(r, 201, "sign video")
	// The signed file is sent from disk; a retry under the same key is
	// answered from the kept file, byte for byte, without signing again.
	if again := ts.idemSign(s, "7d1e-video-sign", clip, map[string]string{"return_file": "true"}); again.status != 201 ||
		again.header.Get("Idempotent-Replayed") != "true" || sha256Hex(again.body) != sha256Hex(r.body) ||
		again.header.Get("X-Record-Id") != r.header.Get("X-Record-Id") {
		t.Fatalf("retry of the video sign: %d, replayed %q, %d bytes; want the first answer replayed", again.status, again.header.Get("Idempotent-Replayed"), len(again.body))
	}
	if ct := r.header.Get("Content-Type"); ct != "video/mp4" {
		t.Fatalf("signed file Content-Type %q, want video/mp4", ct)
	}
	id := r.header.Get("X-Record-Id")
	signed := r.body
	if sha256Hex(signed) != r.header.Get("X-Content-SHA256") {
		t.Fatal("returned file does not hash to the record's sha256")
	}
	f := ts.download("/api/v1/content-records/"+id+"/file", s.apiKey, nil)
	ts.mustStatus(f, 200, "download")
	if sha256Hex(f.body) != sha256Hex(signed) {
		t.Fatal("kept file differs from the returned one")
	}

	cases := []struct {
		name    string
		file    []byte
		trimmed bool
		offset  float64
	}{
		{"signed", signed, false, 0},
		{"crf28", edit(t, signed, ".mp4", "-c:v", "libx264", "-preset", "veryfast", "-crf", "28", "-c:a", "copy"), false, 0},
		{"scale270", edit(t, signed, ".mp4", "-vf", "scale=-2:270", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "copy"), false, 0},
		{"trim2s", edit(t, signed, ".mp4", "-ss", "2", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "copy"), true, 2},
		{"vp9", edit(t, signed, ".webm", "-c:v", "libvpx-vp9", "-crf", "32", "-b:v", "0", "-deadline", "realtime", "-cpu-used", "8", "-c:a", "libopus"), false, 0},
		{"fps25", edit(t, signed, ".mp4", "-vf", "fps=25", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "copy"), false, 0},
		{"crop90", edit(t, signed, ".mp4", "-vf", "crop=trunc(iw*0.45)*2:trunc(ih*0.45)*2", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "copy"), false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := ts.upload("/api/v1/verify", "", []namedFile{{"file", "clip", c.file}}, nil)
			ts.mustStatus(v, 200, "verify")
			res := v.json(t)
			if res["authentic"] != true || res["record_id"] != id {
				t.Fatalf("verify: %s", v.body)
			}
			if c.name == "signed" {
				return // recognised by its hash, not decoded
			}
			vid, _ := res["video"].(map[string]any)
			m, _ := vid["match"].(map[string]any)
			if m == nil || m["record_id"] != id || m["trimmed"] != c.trimmed || m["offset_seconds"] != c.offset {
				t.Fatalf("video details %v, want a match on %s (trimmed %v, offset %v)", vid, id, c.trimmed, c.offset)
			}
			checks, _ := res["checks"].(map[string]any)
			t.Logf("checks %v, video %v", checks, vid)
		})
	}
	// A patch pasted over part of the picture for the whole clip, then
	// re-encoded: the mark and the fingerprint still lead to the record,
	// and the local signatures show the edit where it is.
	t.Run("pasted patch", func(t *testing.T) {
		patched := edit(t, signed, ".mp4", "-vf", "drawbox=x=256:y=128:w=128:h=96:color=0x3080c0@1:t=fill",
			"-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "copy")
		v := ts.upload("/api/v1/verify", "", []namedFile{{"file", "clip", patched}}, nil)
		ts.mustStatus(v, 200, "verify")
		res := v.json(t)
		cb, _ := res["changed_blocks"].(map[string]any)
		cells, _ := cb["cells"].([]any)
		if res["authentic"] != false || res["match"] != "edited" || len(cells) == 0 {
			t.Fatalf("pasted patch: %s; want not authentic, match edited, changed blocks", v.body)
		}
		// The box covers x 40–60 %, y 36–62 % of the picture: every
		// changed block touches it.
		cols, _ := cb["cols"].(float64)
		rows, _ := cb["rows"].(float64)
		for _, c := range cells {
			i, _ := c.(float64)
			col, row := math.Mod(i, cols), math.Floor(i/cols)
			if (col+1)/cols < 0.38 || col/cols > 0.62 || (row+1)/rows < 0.33 || row/rows > 0.65 {
				t.Fatalf("changed block %v (col %v, row %v of %vx%v) lies outside the patch: %s", i, col, row, cols, rows, v.body)
			}
		}
	})
	t.Run("another account cannot re-sign", func(t *testing.T) {
		other := ts.newSigner("video-other@example.com")
		for _, c := range []struct {
			name     string
			file     []byte
			evidence string
		}{{"signed file", signed, "sha256"}, {"rescaled", cases[2].file, "watermark"}} {
			r := ts.upload("/api/v1/sign?signing_key_id="+other.keyID, other.apiKey, []namedFile{{"file", "mine.mp4", c.file}}, nil)
			if r.status != 409 || r.problemCode(t) != "already_signed" || r.json(t)["record_id"] != id ||
				!strings.Contains(string(r.body), c.evidence) {
				t.Fatalf("%s: %d %s, want 409 already_signed naming %s by %s", c.name, r.status, r.body, id, c.evidence)
			}
		}
	})
	t.Run("unrelated", func(t *testing.T) {
		v := ts.upload("/api/v1/verify", "", []namedFile{{"file", "other.mp4", videoClip(t, "testsrc2", "4")}}, nil)
		ts.mustStatus(v, 200, "verify")
		if res := v.json(t); res["authentic"] != false {
			t.Fatalf("unrelated clip: %s", v.body)
		}
	})
	t.Run("sign-batch refuses video items", func(t *testing.T) {
		b := ts.upload("/api/v1/sign-batch?signing_key_id="+s.keyID, s.apiKey, []namedFile{
			{"files", "clip.mp4", clip}, {"files", "p.jpg", photo(t, 53, 384, 288)}}, nil)
		ts.mustStatus(b, 200, "sign-batch")
		items, _ := b.json(t)["items"].([]any)
		if len(items) != 2 {
			t.Fatalf("items: %s", b.body)
		}
		v, img := items[0].(map[string]any), items[1].(map[string]any)
		verr, _ := v["error"].(map[string]any)
		if v["status"] != float64(415) || verr["code"] != "video_not_in_batch" || img["status"] != float64(201) {
			t.Fatalf("batch items: %s", b.body)
		}
	})
	bad := []struct {
		name   string
		file   []byte
		status int
		code   string
	}{
		{"truncated", clip[:len(clip)/3], 422, "corrupt_video"},
		{"webm header only", []byte{0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01}, 422, "corrupt_video"},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			for _, path := range []string{"/api/v1/verify", "/api/v1/sign?signing_key_id=" + s.keyID} {
				v := ts.upload(path, s.apiKey, []namedFile{{"file", "bad.mp4", b.file}}, nil)
				if v.status != b.status || v.problemCode(t) != b.code {
					t.Fatalf("%s: %d %s, want %d %s", path, v.status, v.body, b.status, b.code)
				}
			}
		})
	}
	// Every upload above was spooled to the data directory and every
	// one, answered or refused, is gone.
	ents, err := os.ReadDir(filepath.Join(ts.dataDir, spoolSubdir))
	if err != nil || len(ents) != 0 {
		t.Fatalf("spool directory after the requests: %d entries, %v; want it empty", len(ents), err)
	}
}

// TestVideoWithoutFFmpeg: a server without ffmpeg says so in /ready (and
// stays ready), answers video uploads with 503 video_unavailable, and
// still signs images.
func TestVideoWithoutFFmpeg(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-ffmpeg")
	ts := startServer(t, "", nil, func(c *Config, _ *deps) { c.FFmpeg, c.FFprobe = missing, missing })
	r := ts.do("GET", "/ready", "", nil)
	ts.mustStatus(r, 200, "ready")
	checks, _ := r.json(t)["checks"].(map[string]any)
	if checks["video"] != "unavailable" {
		t.Fatalf("/ready checks %v, want video unavailable", checks)
	}
	s := ts.newSigner("novideo@example.com")
	fake := append([]byte{0, 0, 0, 0x18, 'f', 't', 'y', 'p', 'i', 's', 'o', 'm'}, make([]byte, 64)...)
	for _, path := range []string{"/api/v1/verify", "/api/v1/sign?signing_key_id=" + s.keyID} {
		v := ts.upload(path, s.apiKey, []namedFile{{"file", "clip.mp4", fake}}, nil)
		if v.status != 503 || v.problemCode(t) != "video_unavailable" {
			t.Fatalf("%s: %d %s, want 503 video_unavailable", path, v.status, v.body)
		}
	}
	img := ts.upload("/api/v1/sign?signing_key_id="+s.keyID, s.apiKey, []namedFile{{"file", "p.jpg", photo(t, 52, 384, 288)}}, nil)
	ts.mustStatus(img, 201, "sign image without ffmpeg")
}

// TestVideoRegisterByHashes: a video an SDK signed on the device is
// registered by its SHA-256, its fingerprint and its media type; verify
// finds it by hash, and a re-encode finds it through the fingerprint
// index; register refuses a video without a fingerprint, a fingerprint
// whose middle frame is not the perceptual hash, and unknown media types.
func TestVideoRegisterByHashes(t *testing.T) {
	clip := videoClip(t, "mandelbrot", "6")
	eng, err := video.New(video.Config{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "clip.mp4")
	if err := os.WriteFile(path, clip, 0o600); err != nil {
		t.Fatal(err)
	}
	info, err := eng.Probe(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := eng.Fingerprint(context.Background(), path, info)
	if err != nil {
		t.Fatal(err)
	}
	fpBytes, _ := fp.MarshalBinary()
	ph := fp.Hashes[len(fp.Hashes)/2]

	ts := startServer(t, "", nil)
	a := ts.register("video-device@example.com", "correct horse battery staple")
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	k := ts.do("POST", "/api/v1/keys/signing-keys", a.token, map[string]any{"name": "Field camera", "origin_type": "camera_image", "public_key_hex": hex.EncodeToString(pub)})
	ts.mustStatus(k, 201, "create device key")
	keyID := k.json(t)["id"].(string)
	org, _ := ts.do("GET", "/api/v1/auth/me", a.token, nil).json(t)["org_name"].(string)
	var idb [16]byte
	_, _ = rand.Read(idb[:])
	idb[6], idb[8] = idb[6]&0x0f|0x40, idb[8]&0x3f|0x80
	now := ts.clock.Now().UTC().Truncate(time.Millisecond)
	rec := &record.Record{ID: record.ID(idb), SHA256: sha256.Sum256(clip), PerceptualHash: ph, SignerPublicKey: pub,
		Timestamp: now, OriginType: "camera_image", Org: org}
	sig, err := record.Sign(priv, rec)
	if err != nil {
		t.Fatal(err)
	}
	req := func(over map[string]any) map[string]any {
		m := map[string]any{
			"record_id": rec.ID.String(), "sha256": hex.EncodeToString(rec.SHA256[:]), "perceptual_hash": ph.String(),
			"signature_hex": hex.EncodeToString(sig.Signature), "signing_key_id": keyID, "timestamp": now.Format(record.TimeFormat),
			"original_filename": "clip.mp4", "media_type": "video/mp4", "video_fingerprint": base64.StdEncoding.EncodeToString(fpBytes),
		}
		for k, v := range over {
			m[k] = v
		}
		return m
	}
	other := fp.Hashes[0].String()
	for _, c := range []struct {
		name  string
		over  map[string]any
		field string
	}{
		{"no fingerprint", map[string]any{"video_fingerprint": ""}, "video_fingerprint"},
		{"fingerprint not whole frames", map[string]any{"video_fingerprint": base64.StdEncoding.EncodeToString(fpBytes[:50])}, "video_fingerprint"},
		{"perceptual hash not the middle frame", map[string]any{"perceptual_hash": other}, "perceptual_hash"},
		{"unknown media type", map[string]any{"media_type": "application/pdf"}, "media_type"},
	} {
		r := ts.do("POST", "/api/v1/register", a.token, req(c.over))
		if r.status != 400 || !strings.Contains(string(r.body), `"`+c.field+`"`) {
			t.Errorf("%s: %d %s, want 400 naming %s", c.name, r.status, r.body, c.field)
		}
	}
	r := ts.do("POST", "/api/v1/register", a.token, req(nil))
	ts.mustStatus(r, 201, "register video")
	id := rec.ID.String()

	v := ts.upload("/api/v1/verify", "", []namedFile{{"file", "clip.mp4", clip}}, nil)
	ts.mustStatus(v, 200, "verify registered video")
	if res := v.json(t); res["record_id"] != id {
		t.Fatalf("the registered file itself: %s", v.body)
	}
	reenc := edit(t, clip, ".mp4", "-c:v", "libx264", "-preset", "veryfast", "-crf", "28", "-c:a", "copy")
	v = ts.upload("/api/v1/verify", "", []namedFile{{"file", "reencoded.mp4", reenc}}, nil)
	ts.mustStatus(v, 200, "verify re-encoded registered video")
	// Without a watermark the record carries nothing but hashes: a
	// re-encode resembles it (found through the fingerprint index), as a
	// re-encoded registered image does, and is not authentic.
	res := v.json(t)
	vid, _ := res["video"].(map[string]any)
	m, _ := vid["match"].(map[string]any)
	rs, _ := res["resembles"].(map[string]any)
	if m == nil || m["record_id"] != id || rs["record_id"] != id || res["match"] != "perceptual" {
		t.Fatalf("re-encoded registered video not found by its fingerprint: %s", v.body)
	}
}
