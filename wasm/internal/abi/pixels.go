package abi

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"image"

	"github.com/provenant/provenant/shared/c2pa/sniff"
	"github.com/provenant/provenant/shared/digest"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/wire"
)

type inspectOut struct {
	OK     bool   `json:"ok"`
	Format string `json:"format"`
	// Width and Height are the picture's, EXIF orientation applied.
	Width  int `json:"width"`
	Height int `json:"height"`
	// Orientation is the EXIF orientation (1..8) of a JPEG, 1 otherwise.
	Orientation int `json:"orientation"`
	// PlaneWidth and PlaneHeight are the size analyze_pixels wants the
	// picture decoded to (facts.PlaneSize).
	PlaneWidth  int `json:"plane_width"`
	PlaneHeight int `json:"plane_height"`
	// HostDecode says the host's own decoder may decode this file for
	// analyze_pixels: its luminance does not depend on the decoder
	// (imagex.Info.DecoderIndependent) and nothing in it turns the
	// picture that this module's decoder would leave upright. When false
	// the host calls analyze with the file.
	HostDecode bool `json:"host_decode"`
	// C2PAManifest says the file may carry a C2PA manifest
	// (shared/c2pa/sniff): the host then reads it with the C2PA module's
	// c2pa_read and hands its c2pa to analyze_pixels (whose pixels
	// cannot carry the manifest).
	C2PAManifest bool `json:"c2pa_manifest,omitempty"`
}

// Inspect reads the header of the file in under lim (no pixels are
// decoded) and returns its format, oriented size and EXIF orientation, the
// plane size analyze_pixels takes and whether the host may decode it
// itself, and whether it may carry a C2PA manifest:
// {"ok":true,"format","width","height","orientation","plane_width",
// "plane_height","host_decode","c2pa_manifest"}, or analyze's errors for a
// file analyze would refuse by its header.
func Inspect(in []byte, lim limits.Limits) []byte {
	if in == nil {
		return fail(codeBadInput, "no input buffer (alloc it first)")
	}
	info, err := imagex.DecodeConfig(in, lim)
	if err != nil {
		return imageFailure(err)
	}
	w, h := info.OrientedSize()
	pw, ph, _ := facts.PlaneSize(w, h)
	host := info.DecoderIndependent()
	if info.Format == imagex.PNG && bytes.Contains(in, []byte("eXIf")) {
		// A browser turns a PNG by its EXIF chunk; imagex does not.
		host = false
	}
	return ok(inspectOut{OK: true, Format: string(info.Format), Width: w, Height: h, Orientation: info.Orientation,
		PlaneWidth: pw, PlaneHeight: ph, HostDecode: host, C2PAManifest: sniff.MayCarry(in)})
}

type sha256Out struct {
	OK     bool   `json:"ok"`
	SHA256 string `json:"sha256"`
}

// SHA256 returns {"ok":true,"sha256":hex} of the bytes in, for a host
// without a digest of its own (a browser page outside a secure context
// has no crypto.subtle).
func SHA256(in []byte) []byte {
	if in == nil {
		return fail(codeBadInput, "no input buffer (alloc it first)")
	}
	sum := digest.Sum256(in)
	return ok(sha256Out{OK: true, SHA256: hex.EncodeToString(sum[:])})
}

type pixelsIn struct {
	SHA256 string `json:"sha256"`
	Format string `json:"format"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	// Pixels is "rgba" (the default) or "luma".
	Pixels      string `json:"pixels,omitempty"`
	Orientation int    `json:"orientation,omitempty"`
	// ChromaWidth and ChromaHeight, with "pixels":"luma", are the size of
	// the decoder's Cb and Cr planes (stored, before orientation) that
	// follow the luminance; zero when the host sends none.
	ChromaWidth  int `json:"chroma_width,omitempty"`
	ChromaHeight int `json:"chroma_height,omitempty"`
	// C2PA is the C2PA module's c2pa_read answer for the same file,
	// omitted when inspect said no c2pa_manifest or the answer was null.
	C2PA *wire.C2PAFacts `json:"c2pa,omitempty"`
}

// AnalyzePixels computes the facts of a picture the host decoded
// (shared/facts.FromPlane). Its input is binary: a 4-byte little-endian
// length n, n bytes of JSON {"sha256","format","width","height",
// "pixels","orientation","c2pa"} (format, width, height, orientation and
// c2pa as inspect returned them for the file, sha256 the file's), then the
// pixels, row after row. With "pixels":"rgba" (the default) they are the
// picture, orientation applied, as non-premultiplied RGBA (4 bytes a
// pixel) at inspect's plane_width×plane_height. With "pixels":"luma" they
// are the decoder's own luminance (a JPEG's Y plane) at the stored size,
// before orientation (height×width for orientations 5 to 8), 1 byte a
// pixel: the module area-averages it to the plane size and turns it;
// with "chroma_width" and "chroma_height" the decoder's Cb then Cr planes
// of that size (stored, before orientation, covering the picture: a
// JPEG's subsampled planes) follow it. The chroma (from the RGBA, or the
// planes sent) goes into the local-signature probe, so that colour grids
// compare colour in the browser as on the origin. The output is
// analyze's.
func AnalyzePixels(in []byte, lim limits.Limits) []byte {
	var req pixelsIn
	pix, failure := binaryInput(in, &req)
	if failure != nil {
		return failure
	}
	sum, format, failure := pictureHeader(req.SHA256, req.Format, req.Width, req.Height, lim)
	if failure != nil {
		return failure
	}
	w, h := req.Width, req.Height
	pw, ph, _ := facts.PlaneSize(w, h)
	var l, cb, cr *imagex.Luma
	switch req.Pixels {
	case "", "rgba":
		if len(pix) != 4*pw*ph {
			return fail(codeBadInput, fmt.Sprintf("%d bytes of pixels, want %d×%d RGBA (%d bytes)", len(pix), pw, ph, 4*pw*ph))
		}
		if req.ChromaWidth != 0 || req.ChromaHeight != 0 {
			return fail(codeBadInput, `chroma planes go with "pixels":"luma" only`)
		}
		m := &image.NRGBA{Pix: pix, Stride: 4 * pw, Rect: image.Rect(0, 0, pw, ph)}
		l = imagex.ToLuma(m)
		cb, cr = imagex.Chroma(m)
	case "luma":
		o := max(req.Orientation, 1)
		if o > 8 {
			return fail(codeBadInput, "orientation must be 1 to 8")
		}
		sw, sh, spw, sph := w, h, pw, ph
		if o >= 5 {
			sw, sh, spw, sph = h, w, ph, pw
		}
		cw, ch := req.ChromaWidth, req.ChromaHeight
		switch {
		case cw == 0 && ch == 0:
		case cw <= 0 || ch <= 0 || cw > sw || ch > sh || 2*cw < sw || 2*ch < sh:
			return fail(codeBadInput, fmt.Sprintf("chroma planes %d×%d for a %d×%d picture (want half to full size on each side)", cw, ch, sw, sh))
		}
		if len(pix) != sw*sh+2*cw*ch {
			return fail(codeBadInput, fmt.Sprintf("%d bytes of luminance and chroma, want %d×%d + 2×%d×%d (%d bytes)", len(pix), sw, sh, cw, ch, sw*sh+2*cw*ch))
		}
		if cw > 0 {
			c := pix[sw*sh:]
			cb = orientPlane(&imagex.Luma{Width: cw, Height: ch, Stride: cw, Pix: c[:cw*ch]}, o)
			cr = orientPlane(&imagex.Luma{Width: cw, Height: ch, Stride: cw, Pix: c[cw*ch:]}, o)
		}
		pix = pix[:sw*sh]
		l = &imagex.Luma{Width: sw, Height: sh, Stride: sw, Pix: pix}
		if spw != sw || sph != sh {
			l = imagex.Downscale(l, spw, sph)
		}
		l = orientPlane(l, o)
	default:
		return fail(codeBadInput, `pixels must be "rgba" or "luma"`)
	}
	f, err := facts.FromPlane(l, format, w, h, sum)
	switch {
	case errors.Is(err, facts.ErrPlaneSize):
		return fail(codeBadInput, err.Error())
	case err != nil:
		return fail(codeInvalidImage, err.Error())
	}
	f.WithChroma(cb, cr)
	f.C2PA = req.C2PA
	return ok(analyzeOut{OK: true, Facts: f.Wire(), Local: f.WireProbe()})
}

// orientPlane turns a stored plane upright by EXIF orientation o.
func orientPlane(l *imagex.Luma, o int) *imagex.Luma {
	if o <= 1 {
		return l
	}
	g := imagex.Orient(&image.Gray{Pix: l.Pix, Stride: l.Stride, Rect: image.Rect(0, 0, l.Width, l.Height)}, o).(*image.Gray)
	return &imagex.Luma{Width: g.Rect.Dx(), Height: g.Rect.Dy(), Stride: g.Stride, Pix: g.Pix}
}

// binaryInput reads the header of a binary input (a 4-byte little-endian
// length n, then n bytes of JSON) into req and returns what follows it,
// or the call's failure.
func binaryInput(in []byte, req any) (rest, failure []byte) {
	if in == nil {
		return nil, fail(codeBadInput, "no input buffer (alloc it first)")
	}
	if len(in) < 4 {
		return nil, fail(codeBadInput, "input shorter than its 4-byte header length")
	}
	n := binary.LittleEndian.Uint32(in)
	if uint64(n) > uint64(len(in)-4) {
		return nil, fail(codeBadInput, "header length beyond the input")
	}
	if err := decodeStrict(in[4:4+n], req); err != nil {
		return nil, fail(codeBadInput, err.Error())
	}
	return in[4+n:], nil
}

// pictureHeader checks what every host-decoded input's header declares:
// the file's SHA-256 in hex (sha), a format the module knows (name) and a
// size w×h within lim (the header check analyze makes, with its error
// code). It returns the digest and the format, or the call's failure.
func pictureHeader(sha, name string, w, h int, lim limits.Limits) (sum [32]byte, format imagex.Format, failure []byte) {
	if b, err := hex.DecodeString(sha); err != nil || len(b) != len(sum) {
		return sum, "", fail(codeBadInput, "sha256 must be 64 hex digits")
	} else {
		copy(sum[:], b)
	}
	format = imagex.Format(name)
	if format.MIMEType() == "" {
		return sum, "", fail(codeUnsupported, fmt.Sprintf("format %q", name))
	}
	if w <= 0 || h <= 0 {
		return sum, "", fail(codeBadInput, "width and height must be positive")
	}
	if w > lim.MaxSide || h > lim.MaxSide || int64(w)*int64(h) > lim.MaxPixels {
		return sum, "", fail(codeTooLarge, (&imagex.DimensionError{Format: format, Width: w, Height: h, MaxPixels: lim.MaxPixels, MaxSide: lim.MaxSide}).Error())
	}
	return sum, format, nil
}
