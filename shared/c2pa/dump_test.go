package c2pa_test

import (
	"os"
	"testing"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
)

func TestDump(t *testing.T) {
	dir := os.Getenv("C2PA_DUMP")
	if dir == "" {
		t.Skip()
	}
	s := c2patest.NewSigner(t, c2patest.CertOptions{})
	out, _, _, err := c2pa.Embed(testJPEG(t), testManifest("image/jpeg"), s)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(dir+"/a.jpg", out, 0o644)
	out, _, _, err = c2pa.Embed(testPNG(t), testManifest("image/png"), s)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(dir+"/a.png", out, 0o644)
}
