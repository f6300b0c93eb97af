package phash

import (
	"testing"

	"github.com/corona10/goimagehash"

	"github.com/provenant/provenant/shared/imagex"
)

func benchPlane() *imagex.Luma {
	return plane(2560, 1600, func(x, y int) uint8 { return uint8(x*7 ^ y*13 ^ (x*y)>>5) })
}

// BenchmarkExt256 is the 256-bit hash of a 256×256 plane; compare with
// BenchmarkExt256Goimagehash, the library call it reproduces.
func BenchmarkExt256(b *testing.B) {
	s := imagex.Downscale(benchPlane(), Side256, Side256)
	b.ReportAllocs()
	for b.Loop() {
		ext256(s)
	}
}

func BenchmarkExt256Goimagehash(b *testing.B) {
	g := gray(imagex.Downscale(benchPlane(), Side256, Side256))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := goimagehash.ExtPerceptionHash(g, 16, 16); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDownscale4MP(b *testing.B) {
	l := benchPlane()
	b.ReportAllocs()
	for b.Loop() {
		imagex.Downscale(l, Side256, Side256)
	}
}

// BenchmarkCompute4MP, BenchmarkDihedral4MP and BenchmarkGeometric4MP
// are what sign adds for look-before-mark on a 4 MP plane: the eight
// variants cost one Compute plus eight medians; the geometric hashes a
// 512-pixel downscale, four rotations and eight hashes.
func BenchmarkCompute4MP(b *testing.B) {
	l := benchPlane()
	for b.Loop() {
		if _, err := Compute(l); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDihedral4MP(b *testing.B) {
	l := benchPlane()
	for b.Loop() {
		if _, err := Dihedral(l); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGeometric4MP(b *testing.B) {
	l := benchPlane()
	for b.Loop() {
		if _, err := Geometric(l); err != nil {
			b.Fatal(err)
		}
	}
}
