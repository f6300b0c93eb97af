package c2pa_test

import (
	"testing"
	"time"

	"github.com/provenant/provenant/shared/c2pa"
	"github.com/provenant/provenant/shared/c2pa/c2patest"
)

// BenchmarkEmbed and BenchmarkRead measure one manifest written into and
// read back from a small JPEG (signature and hashing dominate).
func BenchmarkEmbed(b *testing.B) {
	s := c2patest.NewSigner(b, c2patest.CertOptions{})
	jpg := testJPEG(b)
	m := testManifest("image/jpeg")
	for b.Loop() {
		if _, _, _, err := c2pa.Embed(jpg, m, s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRead(b *testing.B) {
	s := c2patest.NewSigner(b, c2patest.CertOptions{})
	out, _, _ := mustEmbed(b, testJPEG(b), testManifest("image/jpeg"), s)
	for b.Loop() {
		if _, err := c2pa.Read(out, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
}
