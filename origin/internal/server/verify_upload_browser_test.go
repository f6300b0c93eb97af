package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/chromedp"
)

// TestVerifyPageUploadsWhatItCannotRead: the web app's /verify checks
// pictures in the browser, but a video (which the module cannot read)
// goes to POST /api/v1/verify, and the page says it was uploaded and why;
// so does a file the module refuses as an unsupported format, whose error
// is then said in plain words with its stable code, never the verifier's
// internal package names.
func TestVerifyPageUploadsWhatItCannotRead(t *testing.T) {
	chromiumPath(t)
	clip := videoClip(t, "mandelbrot", "3")
	module, err := verifierModule()
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, "", nil, func(c *Config, _ *deps) {
		c.Verifier = fstest.MapFS{"verifier.wasm": {Data: module}}
	})
	s := ts.newSignerOrg("desk@clips.example", "Clip News")
	r := ts.signFile(s, clip, nil)
	ts.mustStatus(r, 201, "sign a clip")
	signed, id := r.body, r.header.Get("X-Record-Id")

	tmp := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	b := newBrowser(t)
	type page struct {
		Status, Path, Upload, Text string
	}
	verify := func(path string) page {
		t.Helper()
		before := len(b.requests())
		b.run(t, "open verify", chromedp.Navigate(ts.base+"/verify"))
		b.waitJS(t, "verify page", `document.body.dataset.page === "verify"`, 10*time.Second)
		b.run(t, "choose "+filepath.Base(path), chromedp.SetUploadFiles("#file", []string{path}, chromedp.ByQuery))
		b.waitJS(t, "verdict", `!document.querySelector("#result").hidden`, 60*time.Second)
		var p page
		b.eval(t, `(() => { const r = document.querySelector("#result"); return {Status: r.dataset.status, Path: r.dataset.path,
		  Upload: r.dataset.upload, Text: r.innerText}; })()`, &p)
		uploaded := false
		for _, q := range b.requests()[before:] {
			uploaded = uploaded || (q.URL == ts.base+"/api/v1/verify" && q.Method == "POST")
		}
		if (p.Path == "server") != uploaded {
			t.Errorf("%s: page says path %q, but POST /api/v1/verify sent: %v", filepath.Base(path), p.Path, uploaded)
		}
		return p
	}

	t.Run("signed video", func(t *testing.T) {
		p := verify(write("clip.mp4", signed))
		if p.Status != "pending" && p.Status != "verified" || p.Path != "server" || p.Upload != "video" {
			t.Errorf("signed clip: status %q path %q upload %q, want authentic, checked on the server because it is a video:\n%s", p.Status, p.Path, p.Upload, p.Text)
		}
		for _, want := range []string{"Videos are checked on the server", "uploaded", id, "Clip News"} {
			if !strings.Contains(p.Text, want) {
				t.Errorf("signed clip's page lacks %q:\n%s", want, p.Text)
			}
		}
	})
	t.Run("unsigned video", func(t *testing.T) {
		p := verify(write("other.mp4", videoClip(t, "testsrc2", "2")))
		if p.Status != "none" || p.Upload != "video" {
			t.Errorf("unsigned clip: status %q upload %q, want none after an upload:\n%s", p.Status, p.Upload, p.Text)
		}
	})
	t.Run("unreadable format", func(t *testing.T) {
		// A TIFF header: no format the module or the server reads.
		p := verify(write("scan.tif", append([]byte("II*\x00\x08\x00\x00\x00"), make([]byte, 64)...)))
		if p.Status != "error" || p.Upload != "format" {
			t.Errorf("TIFF: status %q upload %q, want an error after the server was asked too:\n%s", p.Status, p.Upload, p.Text)
		}
		for _, bad := range []string{"imagex", "inspect:", "analyze:"} {
			if strings.Contains(p.Text, bad) {
				t.Errorf("page shows the internal name %q:\n%s", bad, p.Text)
			}
		}
		if !strings.Contains(p.Text, "cannot read this kind of file") || !strings.Contains(p.Text, "unsupported_image_format") {
			t.Errorf("TIFF: page does not say why in words with the code:\n%s", p.Text)
		}
	})
}
