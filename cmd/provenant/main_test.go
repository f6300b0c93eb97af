package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/client"
	"github.com/provenant/provenant/origin/origintest"
)

// cli runs the command in-process with its own environment.
type cli struct {
	t   *testing.T
	env map[string]string
}

type result struct {
	code     int
	out, err string
}

func (c *cli) run(stdin string, args ...string) result {
	c.t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, stdio{in: strings.NewReader(stdin), out: &out, err: &errb, getenv: func(k string) string { return c.env[k] }})
	return result{code, out.String(), errb.String()}
}

func (c *cli) must(want int, stdin string, args ...string) result {
	c.t.Helper()
	r := c.run(stdin, args...)
	if r.code != want {
		c.t.Fatalf("provenant %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, want, r.out, r.err)
	}
	return r
}

func newCLI(t *testing.T, url string) *cli {
	return &cli{t: t, env: map[string]string{
		"PROVENANT_URL":    url,
		"PROVENANT_CONFIG": filepath.Join(t.TempDir(), "cfg", "config.json"),
	}}
}

// signerCLI registers the news organisation org as email at url, logs
// the CLI in with a new API key and creates its default signing key (a
// camera's, "desk camera").
func signerCLI(t *testing.T, url, email, org string) *cli {
	t.Helper()
	pub, _ := client.New(client.Config{BaseURL: url})
	if _, err := pub.RegisterAccount(context.Background(), client.RegisterAccountRequest{Email: email, Password: "correct horse battery", OrgName: org, OrgType: "news_org"}); err != nil {
		t.Fatal(err)
	}
	c := newCLI(t, url)
	c.must(0, "correct horse battery\n", "login", "--email", email, "--password-stdin", "--create-api-key", "laptop")
	c.must(0, "", "keys", "signing", "create", "desk camera", "--origin-type", "camera_image")
	return c
}

// photo writes a deterministic textured picture (seed picks it) as JPEG
// or PNG (by path's extension).
func photo(t *testing.T, path string, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	const w, h = 480, 360
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	cx, cy := rng.Float64()*w, rng.Float64()*h
	base := [3]float64{rng.Float64() * 200, rng.Float64() * 200, rng.Float64() * 200}
	for y := range h {
		for x := range w {
			d := ((float64(x)-cx)*(float64(x)-cx) + (float64(y)-cy)*(float64(y)-cy)) / (w * w / 4)
			v := func(i int) uint8 { return uint8(max(0, min(255, base[i]+55*(1-d)+rng.Float64()*20))) }
			img.Set(x, y, color.RGBA{v(0), v(1), v(2), 255})
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if strings.HasSuffix(path, ".png") {
		err = png.Encode(f, img)
	} else {
		err = jpeg.Encode(f, img, &jpeg.Options{Quality: 90})
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestRoundTrip(t *testing.T) {
	o := origintest.Start(t, origintest.Options{})
	ctx := context.Background()
	pub, _ := client.New(client.Config{BaseURL: o.URL})
	if _, err := pub.RegisterAccount(ctx, client.RegisterAccountRequest{Email: "desk@example.com", Password: "correct horse battery", OrgName: "Example News", OrgType: "news_org"}); err != nil {
		t.Fatal(err)
	}
	c := newCLI(t, o.URL)

	// login stores the session and a new API key, mode 0600.
	r := c.must(0, "correct horse battery\n", "login", "--email", "desk@example.com", "--password-stdin", "--create-api-key", "laptop")
	if !strings.Contains(r.out, "Example News") {
		t.Errorf("login output: %s", r.out)
	}
	// The session's end is a date and time with its zone, not a bare
	// clock time.
	if !regexp.MustCompile(`session valid until \d{4}-\d\d-\d\d \d\d:\d\d [A-Za-z+\-0-9]+\.`).MatchString(r.out) {
		t.Errorf("login output does not give the session's end with a date and zone: %s", r.out)
	}
	st, err := os.Stat(c.env["PROVENANT_CONFIG"])
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v, mode %v, want 0600", err, st.Mode().Perm())
	}
	cfg, err := loadConfig(c.env["PROVENANT_CONFIG"])
	if err != nil || !strings.HasPrefix(cfg.APIKey, "iai_") || cfg.Token == "" || cfg.OrgName != "Example News" || cfg.URL != o.URL {
		t.Fatalf("stored config = %+v, %v", cfg, err)
	}

	// A signing key becomes the default.
	r = c.must(0, "", "--json", "keys", "signing", "create", "desk camera", "--origin-type", "camera_image")
	var sk client.SigningKey
	if err := json.Unmarshal([]byte(r.out), &sk); err != nil || sk.ID == "" {
		t.Fatalf("signing key output %q: %v", r.out, err)
	}
	if cfg, _ = loadConfig(c.env["PROVENANT_CONFIG"]); cfg.SigningKeyID != sk.ID {
		t.Fatalf("default signing key = %q, want %q", cfg.SigningKeyID, sk.ID)
	}
	r = c.must(0, "", "keys", "api", "list")
	if !strings.Contains(r.out, "laptop") {
		t.Errorf("keys api list: %s", r.out)
	}
	r = c.must(0, "", "keys", "signing", "list")
	if !strings.Contains(r.out, "desk camera") || !strings.Contains(r.out, sk.ID) {
		t.Errorf("keys signing list: %s", r.out)
	}

	// A webhook through its life: each ID command reaches its own endpoint
	// and prints what that endpoint answered.
	r = c.must(0, "", "--json", "webhooks", "create", "https://93.184.215.14/hook", "--event", "batch.anchored")
	var hook client.Webhook
	if err := json.Unmarshal([]byte(r.out), &hook); err != nil || hook.ID == "" || hook.Secret == "" {
		t.Fatalf("webhooks create output %q: %v", r.out, err)
	}
	if r = c.must(0, "", "webhooks", "list"); !strings.Contains(r.out, hook.ID) || !strings.Contains(r.out, "batch.anchored") {
		t.Errorf("webhooks list: %s", r.out)
	}
	if r = c.must(0, "", "webhooks", "show", hook.ID); !strings.Contains(r.out, "https://93.184.215.14/hook") || strings.Contains(r.out, "secret") {
		t.Errorf("webhooks show: %s", r.out)
	}
	if r = c.must(0, "", "webhooks", "rotate-secret", hook.ID); !strings.Contains(r.out, "secret ") || strings.Contains(r.out, hook.Secret) {
		t.Errorf("webhooks rotate-secret: %s", r.out)
	}
	r = c.must(0, "", "--json", "webhooks", "delete", hook.ID)
	var del map[string]string
	if err := json.Unmarshal([]byte(r.out), &del); err != nil || del["id"] != hook.ID || del["status"] != "deleted" || len(del) != 2 {
		t.Errorf("webhooks delete: %s", r.out)
	}
	if r = c.must(0, "", "webhooks", "list"); strings.Contains(r.out, hook.ID) {
		t.Errorf("deleted webhook still listed: %s", r.out)
	}
	c.must(exitAPI, "", "webhooks", "show", hook.ID)

	// --store keeps a new API key in the config file, beside what is there.
	r = c.must(0, "", "--json", "keys", "api", "create", "desk ci", "--store")
	var stored client.NewAPIKey
	if err := json.Unmarshal([]byte(r.out), &stored); err != nil || stored.Key == "" {
		t.Fatalf("keys api create --store output %q: %v", r.out, err)
	}
	if cfg, _ = loadConfig(c.env["PROVENANT_CONFIG"]); cfg.APIKey != stored.Key || cfg.SigningKeyID != sk.ID || cfg.Token == "" {
		t.Fatalf("config after --store = %+v, want the new key beside the default signing key and the session", cfg)
	}

	// Sign a folder (with a subfolder and a PNG) into -o.
	in, out := filepath.Join(t.TempDir(), "shoot"), filepath.Join(t.TempDir(), "signed")
	photo(t, filepath.Join(in, "a.jpg"), 1)
	photo(t, filepath.Join(in, "b.png"), 2)
	photo(t, filepath.Join(in, "day2", "c.jpeg"), 3)
	os.WriteFile(filepath.Join(in, "notes.txt"), []byte("not an image"), 0o644)
	r = c.must(0, "", "--json", "sign", in, "-o", out, "-p", "2")
	var rep struct {
		Items          []signResult `json:"items"`
		Signed, Failed int
	}
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil || rep.Signed != 3 || rep.Failed != 0 {
		t.Fatalf("sign report %s: %v", r.out, err)
	}
	wantOut := []string{filepath.Join(out, "a.signed.jpg"), filepath.Join(out, "b.signed.png"), filepath.Join(out, "day2", "c.signed.jpg")}
	for i, w := range wantOut {
		if rep.Items[i].Output != w || rep.Items[i].RecordID == "" {
			t.Errorf("item %d = %+v, want output %s", i, rep.Items[i], w)
		}
		if st, err := os.Stat(w); err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("signed file: %v %v, want mode 0644", err, st)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(out, ".provenant-sign-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}

	// A second run skips what exists; one file signed next to itself.
	r = c.must(0, "", "sign", in, "-o", out)
	if strings.Count(r.out, "skipped  ") != 3 {
		t.Errorf("second run: %s", r.out)
	}
	single := filepath.Join(t.TempDir(), "d.jpg")
	photo(t, single, 4)
	c.must(0, "", "sign", single)
	if _, err := os.Stat(strings.TrimSuffix(single, ".jpg") + ".signed.jpg"); err != nil {
		t.Errorf("signed next to the original: %v", err)
	}

	// Verify by upload and locally: authentic (0); the unsigned original is
	// not (1).
	r = c.must(0, "", "verify", wantOut[0])
	if !strings.Contains(r.out, ": Authentic — signed and unchanged\n") || !strings.Contains(r.out, rep.Items[0].RecordID) {
		t.Errorf("verify output: %s", r.out)
	}
	r = c.must(0, "", "--json", "verify", "--local", wantOut[2])
	var vr client.VerifyResponse
	if err := json.Unmarshal([]byte(r.out), &vr); err != nil || !vr.Authentic || vr.RecordID != rep.Items[2].RecordID {
		t.Errorf("local verify: %s (%v)", r.out, err)
	}
	other := filepath.Join(t.TempDir(), "other.jpg")
	photo(t, other, 99)
	r = c.must(1, "", "verify", "--local", other)
	if strings.Contains(r.out, ": Authentic") || !regexp.MustCompile(`\n  verdict +not authentic; match: `).MatchString(r.out) || !strings.Contains(r.out, "computed on this machine") {
		t.Errorf("unsigned verify: %s", r.out)
	}

	// Records: four, then one revoked verifies as not authentic.
	r = c.must(0, "", "--json", "records", "--all")
	var page client.Page[client.Record]
	if err := json.Unmarshal([]byte(r.out), &page); err != nil || len(page.Items) != 4 {
		t.Fatalf("records: %s (%v)", r.out, err)
	}
	c.must(0, "", "records", "revoke", rep.Items[0].RecordID, "--reason", "wrong picture")
	r = c.must(1, "", "verify", wantOut[0])
	if !strings.Contains(r.out, "revoked") {
		t.Errorf("verify of a revoked record: %s", r.out)
	}
	dl := filepath.Join(t.TempDir(), "again.png")
	c.must(0, "", "records", "download", rep.Items[1].RecordID, "-o", dl)
	if a, b := readFile(t, dl), readFile(t, wantOut[1]); !bytes.Equal(a, b) {
		t.Errorf("downloaded file differs from the signed output (%d, %d bytes)", len(a), len(b))
	}
	r = c.must(0, "", "records", "show", rep.Items[1].RecordID)
	if !strings.Contains(r.out, "b.png") {
		t.Errorf("records show: %s", r.out)
	}

	// Receipt, once anchored, then checked offline and on the origin's
	// chain.
	rcpt := filepath.Join(t.TempDir(), "b.receipt.json")
	waitCLIReceipt(t, c, rep.Items[1].RecordID, rcpt)
	r = c.must(0, "", "verify-receipt", rcpt)
	if !strings.Contains(r.out, "VALID") || !strings.Contains(r.out, "Example News") || !strings.Contains(r.out, "not done") {
		t.Errorf("verify-receipt offline: %s", r.out)
	}
	r = c.must(0, "", "--json", "verify-receipt", rcpt, "--rpc", o.ChainRPC)
	var vrc struct {
		Valid        bool `json:"valid"`
		ChainChecked bool `json:"chain_checked"`
	}
	if err := json.Unmarshal([]byte(r.out), &vrc); err != nil || !vrc.Valid || !vrc.ChainChecked {
		t.Errorf("verify-receipt --rpc: %s", r.out)
	}
	// A wrong chain, a tampered receipt, an unreachable node.
	wrong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":"0x1"}`))
	}))
	defer wrong.Close()
	r = c.must(1, "", "verify-receipt", rcpt, "--rpc", wrong.URL)
	if !strings.Contains(r.out, "INVALID") {
		t.Errorf("verify-receipt on another chain: %s", r.out)
	}
	b, _ := os.ReadFile(rcpt)
	tampered := filepath.Join(t.TempDir(), "tampered.json")
	os.WriteFile(tampered, bytes.Replace(b, []byte(`"tree_size":`), []byte(`"tree_size":1`), 1), 0o644)
	c.must(1, "", "verify-receipt", tampered)
	c.must(exitNetwork, "", "verify-receipt", rcpt, "--rpc", "http://127.0.0.1:1")

	// A device key: generated here, the private key in a 0600 file; the
	// service cannot sign with it; register signs here and the result is
	// authentic at the origin.
	keyFile := filepath.Join(t.TempDir(), "camera.key")
	r = c.must(0, "", "keys", "signing", "create", "field camera", "--origin-type", "camera_image", "--device-key", keyFile)
	if !strings.Contains(r.out, "Created device key") {
		t.Errorf("device key output: %s", r.out)
	}
	if st, err := os.Stat(keyFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", err, st)
	}
	dk, _, err := loadDeviceKey(keyFile)
	if err != nil || dk.SigningKeyID == "" {
		t.Fatalf("key file: %+v %v", dk, err)
	}
	c.must(exitUsage, "", "keys", "signing", "create", "again", "--origin-type", "camera_image", "--device-key", keyFile)
	field := filepath.Join(t.TempDir(), "field.jpg")
	photo(t, field, 21)
	r = c.must(exitAPI, "", "--json", "sign", "--key", dk.SigningKeyID, field)
	if !strings.Contains(r.out, "device_key_cannot_sign") {
		t.Errorf("sign with a device key: %s", r.out)
	}
	r = c.must(0, "", "--json", "register", field, "--key", keyFile)
	var reg struct{ Items []signResult }
	if err := json.Unmarshal([]byte(r.out), &reg); err != nil || len(reg.Items) != 1 || reg.Items[0].Status != "registered" {
		t.Fatalf("register: %s (%v)", r.out, err)
	}
	r = c.must(0, "", "verify", reg.Items[0].Output)
	if !strings.Contains(r.out, reg.Items[0].RecordID) {
		t.Errorf("verify of a registered file: %s", r.out)
	}
	c.must(0, "", "verify", "--local", reg.Items[0].Output)

	// Revocation: the device key leaked before its record was anchored,
	// so the record's receipt no longer holds; the service key is revoked
	// and signs nothing more.
	devRcpt := filepath.Join(t.TempDir(), "field.receipt.json")
	waitCLIReceipt(t, c, reg.Items[0].RecordID, devRcpt)
	c.must(0, "", "verify-receipt", devRcpt)
	r = c.must(0, "", "keys", "signing", "revoke", dk.SigningKeyID, "--reason", "key extracted", "--compromised-since", time.Now().Add(-time.Hour).UTC().Format(time.RFC3339))
	if !strings.Contains(r.out, "Revoked signing key") {
		t.Errorf("revoke: %s", r.out)
	}
	waitCLIReceipt(t, c, reg.Items[0].RecordID, devRcpt)
	r = c.must(1, "", "verify-receipt", devRcpt)
	if !strings.Contains(r.out, "INVALID") || !strings.Contains(r.out, "revoked") {
		t.Errorf("verify-receipt after revocation: %s", r.out)
	}
	c.must(1, "", "verify", reg.Items[0].Output)
	c.must(exitUsage, "", "keys", "signing", "revoke", sk.ID, "--compromised-since", "yesterday")
	c.must(0, "", "keys", "signing", "revoke", sk.ID)
	r = c.must(exitAPI, "", "--json", "sign", "--force", single)
	if !strings.Contains(r.out, "signing_key_revoked") {
		t.Errorf("sign with a revoked key: %s", r.out)
	}
	r = c.must(exitAPI, "", "--json", "keys", "signing", "revoke", sk.ID)
	if !strings.Contains(r.err, "signing_key_already_revoked") {
		t.Errorf("second revoke: %s", r.err)
	}
}

// waitCLIReceipt runs receipt until the record is anchored.
func waitCLIReceipt(t *testing.T, c *cli, id, out string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := c.run("", "--json", "receipt", id, "-o", out)
		if r.code == 0 {
			return
		}
		if r.code != exitAPI || !strings.Contains(r.err, "record_not_anchored") || time.Now().After(deadline) {
			t.Fatalf("receipt: exit %d\n%s%s", r.code, r.out, r.err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestExitCodes(t *testing.T) {
	o := origintest.Start(t, origintest.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	notImage := filepath.Join(t.TempDir(), "notes.jpg")
	os.WriteFile(notImage, []byte("plain text, not a picture"), 0o644)
	tests := []struct {
		name     string
		url      string
		args     []string
		want     int
		wantCode string // the problem code in --json stderr
	}{
		{"unknown command", o.URL, []string{"frobnicate"}, exitUsage, ""},
		{"unknown flag", o.URL, []string{"verify", "--frob", "x"}, exitUsage, ""},
		{"missing argument", o.URL, []string{"verify"}, exitUsage, ""},
		{"no API key", o.URL, []string{"records"}, exitUsage, ""},
		{"no session", o.URL, []string{"keys", "api", "list"}, exitUsage, ""},
		{"no signing key", o.URL, []string{"--api-key", "iai_x", "sign", notImage}, exitUsage, ""},
		{"origin refuses", o.URL, []string{"--json", "verify", notImage}, exitAPI, "unsupported_image_format"},
		{"bad API key", o.URL, []string{"--json", "--api-key", "iai_nope", "records"}, exitAPI, "invalid_api_key"},
		{"network", closed, []string{"--retries", "0", "verify", notImage}, exitNetwork, ""},
		{"missing file", o.URL, []string{"verify", filepath.Join(t.TempDir(), "absent.jpg")}, exitLocal, ""},
		// The local verifier's refusal carries the origin's code for the
		// same file, in words without internal package names.
		{"local cannot read", o.URL, []string{"--json", "verify", "--local", notImage}, exitLocal, "unsupported_image_format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t, tt.url)
			r := c.run("", tt.args...)
			if r.code != tt.want {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.want, r.out, r.err)
			}
			for _, internal := range []string{"imagex", "inspect:", "facts:"} {
				if strings.Contains(r.err, internal) {
					t.Errorf("stderr names an internal package (%s): %s", internal, r.err)
				}
			}
			if tt.wantCode != "" {
				var e struct{ Error client.Error }
				if err := json.Unmarshal([]byte(r.err), &e); err != nil || e.Error.Code != tt.wantCode {
					t.Errorf("stderr %q: code %q, want %q (%v)", r.err, e.Error.Code, tt.wantCode, err)
				}
			}
		})
	}
}

func TestSettingsPrecedence(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"items":[]}`))
	}))
	defer srv.Close()
	c := newCLI(t, "")
	if err := saveConfig(c.env["PROVENANT_CONFIG"], fileConfig{URL: srv.URL, APIKey: "iai_file"}); err != nil {
		t.Fatal(err)
	}
	c.must(0, "", "records")
	c.env["PROVENANT_API_KEY"] = "iai_env"
	c.must(0, "", "records")
	c.must(0, "", "--api-key", "iai_flag", "records")
	c.env["PROVENANT_URL"] = "http://127.0.0.1:1"
	c.must(exitNetwork, "", "--retries", "0", "records")
	c.must(0, "", "--url", srv.URL, "records")
	want := []string{"Bearer iai_file", "Bearer iai_env", "Bearer iai_flag", "Bearer iai_env"}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(seen, ",") != strings.Join(want, ",") {
		t.Errorf("Authorization sent = %v, want %v", seen, want)
	}
}

// TestSignRecoversCutFile: the signed file's transfer is cut after the
// origin stored the record; sign downloads the kept file instead.
func TestSignRecoversCutFile(t *testing.T) {
	o := origintest.Start(t, origintest.Options{})
	ctx := context.Background()
	pub, _ := client.New(client.Config{BaseURL: o.URL})
	s, err := pub.RegisterAccount(ctx, client.RegisterAccountRequest{Email: "cut@example.com", Password: "correct horse battery", OrgName: "Example News", OrgType: "news_org"})
	if err != nil {
		t.Fatal(err)
	}
	jwt := pub.WithToken(s.AccessToken)
	k, err := jwt.CreateAPIKey(ctx, client.CreateAPIKeyRequest{Name: "k"})
	if err != nil {
		t.Fatal(err)
	}
	sk, err := jwt.CreateSigningKey(ctx, client.CreateSigningKeyRequest{Name: "cam", OriginType: "camera_image"})
	if err != nil {
		t.Fatal(err)
	}
	target, _ := url.Parse(o.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	var paths []string
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path)
		first := len(paths) == 1
		mu.Unlock()
		if !first {
			proxy.ServeHTTP(w, r)
			return
		}
		// Forward the sign, then cut its answer after 500 bytes of body.
		out := r.Clone(r.Context())
		out.URL.Scheme, out.URL.Host, out.RequestURI = target.Scheme, target.Host, ""
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			t.Errorf("forward: %v", err)
			panic(http.ErrAbortHandler)
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.CopyN(w, resp.Body, 500)
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}))
	defer front.Close()
	c := newCLI(t, front.URL)
	c.env["PROVENANT_API_KEY"] = k.Key
	src := filepath.Join(t.TempDir(), "cut.jpg")
	photo(t, src, 31)
	r := c.must(0, "", "--json", "--retries", "0", "sign", "--key", sk.ID, src)
	var rep struct{ Items []signResult }
	if err := json.Unmarshal([]byte(r.out), &rep); err != nil || len(rep.Items) != 1 || rep.Items[0].Status != "signed" {
		t.Fatalf("sign: %s (%v)", r.out, err)
	}
	b, err := os.ReadFile(rep.Items[0].Output)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != rep.Items[0].SHA256 {
		t.Errorf("the written file does not hash to the record's sha256")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) != 2 || paths[1] != "GET /api/v1/content-records/"+rep.Items[0].RecordID+"/file" {
		t.Errorf("requests = %q, want the sign then the file download", paths)
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRetryAfterRateLimit: a 429 with Retry-After is waited out and the
// command succeeds; with --retries 0 it is the API error (exit 3).
func TestRetryAfterRateLimit(t *testing.T) {
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		first := n%2 == 1
		mu.Unlock()
		if first {
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"type":"https://iana.org/assignments/http-problem-types#quota-exceeded","title":"Too many requests","status":429,"code":"rate_limited","violated-policies":["verify"]}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"items":[]}`))
	}))
	defer srv.Close()
	c := newCLI(t, srv.URL)
	c.env["PROVENANT_API_KEY"] = "iai_x"
	c.must(0, "", "records")
	mu.Lock()
	if n != 2 {
		t.Errorf("%d requests, want the 429 and its retry", n)
	}
	mu.Unlock()
	r := c.must(exitAPI, "", "--json", "--retries", "0", "records")
	if !strings.Contains(r.err, `"code":"rate_limited"`) {
		t.Errorf("stderr: %s", r.err)
	}
}
