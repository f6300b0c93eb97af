// Package verifierwasm holds the browser verifier module (the wasm/
// package built for GOOS=wasip1) and its C2PA module (wasm/c2pa) as the
// origin serves them: their bytes, their content hash, which names each in
// an immutable URL, and their gzip and brotli encodings, made once on
// first use, or for brotli taken from the build directory when `make
// wasm` precompressed it (at BrotliBuildLevel, see cmd wasmbr).
package verifierwasm

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	brotli "github.com/molecule-man/go-brrr"
	"github.com/valyala/fasthttp"
)

// FileName is the module's name in a build directory.
const FileName = "verifier.wasm"

// C2PAFileName is the C2PA module's name in a build directory.
const C2PAFileName = "c2pa.wasm"

// hashPrefix is how many hex digits of the SHA-256 name the module in its
// URL: 64 bits, enough that two builds never share a cached URL.
const hashPrefix = 16

// ErrNotBuilt means the build directory holds no module.
var ErrNotBuilt = errors.New("verifierwasm: the verifier module is not built (run `make wasm`)")

//go:embed build
var build embed.FS

// Embedded returns the build directory compiled into this binary: the
// module `make wasm` wrote before the origin was built, or only a README.
func Embedded() fs.FS {
	sub, err := fs.Sub(build, "build")
	if err != nil { // cannot happen: "build" is embedded
		panic(err)
	}
	return sub
}

// Module is a built verifier module. It is safe for concurrent use.
type Module struct {
	raw    []byte
	hash   string
	prefix string
	c2pa   *Module

	gzipOnce, brOnce sync.Once
	gzip, br         []byte
}

// Load reads FileName from fsys, with C2PAFileName as its C2PA module
// when present. It returns ErrNotBuilt when the verifier module is absent
// or empty, and checks the WebAssembly magic of both.
func Load(fsys fs.FS) (*Module, error) {
	b, err := read(fsys, FileName)
	if err != nil {
		return nil, err
	}
	m, err := New(b)
	if err != nil {
		return nil, err
	}
	m.usePrecompressed(fsys, FileName)
	switch c, err := read(fsys, C2PAFileName); {
	case errors.Is(err, ErrNotBuilt):
	case err != nil:
		return nil, err
	default:
		if m.c2pa, err = NewC2PA(c); err != nil {
			return nil, err
		}
		m.c2pa.usePrecompressed(fsys, C2PAFileName)
	}
	return m, nil
}

// BrotliSuffix names, beside a module in the build directory, its brotli
// encoding precompressed at BrotliBuildLevel (verifier.wasm.br).
const BrotliSuffix = ".br"

// BrotliBuildLevel is the brotli level `make wasm` precompresses the
// modules at: 12 % smaller than the level-9 encoding made on first use,
// but about 25 times slower to make (tens of seconds), so only ahead of
// time.
const BrotliBuildLevel = 11

// narrowWindow and wideWindow are the base-2 logarithms of the windows `make
// wasm` tries when it precompresses a module, keeping the smaller
// encoding: the encoder's default 22 (4 MB) and 24 (16 MB), the largest
// RFC 7932 allows, which every brotli decoder (browsers included) takes.
// Neither wins for every module or build: on one build the wider window
// saved 379 bytes of the verifier module and cost 924 of the C2PA
// module; on the next the verifier module was smaller with 22.
const narrowWindow, wideWindow = 22, 24

// Precompress returns the brotli encoding of a module at
// BrotliBuildLevel, the smaller of those with narrowWindow and wideWindow.
func Precompress(raw []byte) []byte {
	var best []byte
	for _, lgwin := range [...]int{narrowWindow, wideWindow} {
		if br := encode(raw, lgwin); best == nil || len(br) < len(best) {
			best = br
		}
	}
	return best
}

func encode(raw []byte, lgwin int) []byte {
	var buf bytes.Buffer
	w, err := brotli.NewWriterOptions(&buf, BrotliBuildLevel, brotli.WriterOptions{LGWin: lgwin, SizeHint: uint(len(raw))})
	if err != nil { // cannot happen: the level and window are in range
		panic(err)
	}
	if _, err := w.Write(raw); err != nil { // a bytes.Buffer does not fail
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// IsBrotliOf reports whether br decodes to raw: a precompressed encoding
// is served only for the very module it was made from.
func IsBrotliOf(br, raw []byte) bool {
	out, err := fasthttp.AppendUnbrotliBytes(make([]byte, 0, len(raw)), br)
	return err == nil && bytes.Equal(out, raw)
}

// IsPrecompressed reports whether br is an encoding Precompress may
// make of raw: it decodes to raw and its stream header declares one of
// those two windows, so that `make wasm` keeps it for an unchanged
// module.
func IsPrecompressed(br, raw []byte) bool {
	w := windowBits(br)
	return (w == narrowWindow || w == wideWindow) && IsBrotliOf(br, raw)
}

// windowBits is the window a brotli stream declares in its first bits
// (RFC 7932, section 9.1), or 0 for one that declares a window of 16 or
// between 10 and 17, which Precompress never makes.
func windowBits(br []byte) int {
	if len(br) == 0 || br[0]&1 == 0 {
		return 0
	}
	if n := int(br[0]>>1) & 7; n != 0 {
		return 17 + n
	}
	return 0
}

// usePrecompressed takes name+BrotliSuffix from fsys as the module's
// brotli encoding when it decodes to the module; a missing or stale one
// (the module rebuilt since) is ignored, and the level-9 encoding is made
// on first use instead.
func (m *Module) usePrecompressed(fsys fs.FS, name string) {
	br, err := fs.ReadFile(fsys, name+BrotliSuffix)
	if err != nil || !IsBrotliOf(br, m.raw) {
		return
	}
	m.brOnce.Do(func() { m.br = br })
}

func read(fsys fs.FS, name string) ([]byte, error) {
	b, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(b) == 0) {
		return nil, ErrNotBuilt
	}
	if err != nil {
		return nil, fmt.Errorf("verifierwasm: %w", err)
	}
	return b, nil
}

// New wraps verifier module bytes (a test passes a freshly built module),
// without a C2PA module.
func New(b []byte) (*Module, error) { return wrap(b, "verifier-") }

// NewC2PA wraps C2PA module bytes.
func NewC2PA(b []byte) (*Module, error) { return wrap(b, "c2pa-") }

func wrap(b []byte, prefix string) (*Module, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, errors.New("verifierwasm: not a WebAssembly module")
	}
	sum := sha256.Sum256(b)
	return &Module{raw: b, hash: hex.EncodeToString(sum[:]), prefix: prefix}, nil
}

// C2PA is the verifier module's C2PA module (wasm/c2pa), which the widget
// fetches for a picture that carries a C2PA manifest; nil when it was not
// built.
func (m *Module) C2PA() *Module { return m.c2pa }

// SHA256 is the module's SHA-256, hex.
func (m *Module) SHA256() string { return m.hash }

// Hash is the prefix of SHA256 that names the module in its URL.
func (m *Module) Hash() string { return m.hash[:hashPrefix] }

// Name is the module's file name in its URL: verifier-<Hash>.wasm, or
// c2pa-<Hash>.wasm for a C2PA module.
func (m *Module) Name() string { return m.prefix + m.Hash() + ".wasm" }

// Size is the module's size in bytes, uncompressed.
func (m *Module) Size() int { return len(m.raw) }

// Encodings a module is served in.
const (
	Identity = ""
	Gzip     = "gzip"
	Brotli   = "br"
)

// Bytes returns the module in encoding (Identity, Gzip or Brotli). The
// compressed forms are computed on first use (about half a second each
// for a 5 MB module) and kept, except a brotli encoding the build
// directory held (Load); callers must not modify the result.
func (m *Module) Bytes(encoding string) []byte {
	switch encoding {
	case Gzip:
		m.gzipOnce.Do(func() { m.gzip = fasthttp.AppendGzipBytesLevel(nil, m.raw, fasthttp.CompressBestCompression) })
		return m.gzip
	case Brotli:
		// Level 9: level 11 saves another ~12% but takes ~30 times longer.
		m.brOnce.Do(func() { m.br = fasthttp.AppendBrotliBytesLevel(nil, m.raw, 9) })
		return m.br
	}
	return m.raw
}
