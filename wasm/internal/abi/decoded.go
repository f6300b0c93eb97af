package abi

import (
	"fmt"

	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/wire"
)

// decodedIn is analyze_decoded's JSON header: an imagex.LumaImage and
// what analyze reads from the file besides its pixels.
type decodedIn = wire.DecodedHeader

// AnalyzeDecoded is [AnalyzeHashed] for a host that decoded the file
// itself with this module's own decoder compiled natively
// (imagex.DecodeLuma with facts.VerifyShortSide, under the same limits):
// the module runs every check after the decode (facts.FromLumaImage), so
// the output is analyze's for the file, byte for byte. The input is
// binary: a 4-byte little-endian length n, n bytes of JSON
// {"sha256","format","width","height","orientation","scale",
// "chroma_width","chroma_height","c2pa_manifest"} (the decode's Info and
// Scale, the file's SHA-256, sniff.MayCarry of the file), then the
// luminance plane (EXIF orientation applied, ceil(W/scale)×ceil(H/scale)
// for the oriented size W×H, 1 byte a pixel, rows without padding), then
// the Cb and then the Cr plane of chroma_width×chroma_height each
// (oriented) when those are set. As with analyze_hashed the module takes
// the host's word for the digest, the decode and the sniff: it is the
// host's own decoder on bytes the host holds. The dimensions are checked
// against the module's limits as analyze checks the header's.
func AnalyzeDecoded(in []byte, lim limits.Limits) []byte {
	var req decodedIn
	pix, failure := binaryInput(in, &req)
	if failure != nil {
		return failure
	}
	sum, format, failure := pictureHeader(req.SHA256, req.Format, req.Width, req.Height, lim)
	if failure != nil {
		return failure
	}
	if req.Orientation < 1 || req.Orientation > 8 {
		return fail(codeBadInput, "orientation must be 1 to 8")
	}
	s := req.Scale
	if s != 1 && s != 2 && s != 4 && s != 8 {
		return fail(codeBadInput, "scale must be 1, 2, 4 or 8")
	}
	img := &imagex.LumaImage{Info: imagex.Info{Format: format, Width: req.Width, Height: req.Height, Orientation: req.Orientation}, Scale: s}
	ow, oh := img.OrientedSize()
	lw, lh := (ow+s-1)/s, (oh+s-1)/s
	cw, ch := req.ChromaWidth, req.ChromaHeight
	if (cw != 0 || ch != 0) && (cw <= 0 || ch <= 0 || cw > ow || ch > oh) {
		return fail(codeBadInput, fmt.Sprintf("chroma planes %d×%d for a %d×%d picture", cw, ch, ow, oh))
	}
	if len(pix) != lw*lh+2*cw*ch {
		return fail(codeBadInput, fmt.Sprintf("%d bytes of planes, want %d×%d + 2×%d×%d (%d bytes)", len(pix), lw, lh, cw, ch, lw*lh+2*cw*ch))
	}
	img.Luma = &imagex.Luma{Width: lw, Height: lh, Stride: lw, Pix: pix[:lw*lh]}
	if cw > 0 {
		c := pix[lw*lh:]
		img.Cb = &imagex.Luma{Width: cw, Height: ch, Stride: cw, Pix: c[:cw*ch]}
		img.Cr = &imagex.Luma{Width: cw, Height: ch, Stride: cw, Pix: c[cw*ch:]}
	}
	f, err := facts.FromLumaImage(img, sum)
	if err != nil {
		return imageFailure(err) // as analyze maps the same error
	}
	return ok(analyzeOut{OK: true, Facts: f.Wire(), Local: f.WireProbe(), C2PAManifest: req.C2PAManifest})
}
