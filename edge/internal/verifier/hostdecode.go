package verifier

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"

	"github.com/provenant/provenant/shared/c2pa/sniff"
	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/wire"
)

// hostDecode decodes file natively with the decoder the module's analyze
// runs (imagex.DecodeLuma with facts.VerifyShortSide, under the module's
// own limits, limits.Default; the header, read once for the memory check,
// is handed to imagex.DecodeLumaInfo) and returns analyze_decoded's input in
// parts. ok is false, and the module is left to analyze the file itself,
// for anything but a JPEG, for a JPEG whose decode the header says could
// need more than memoryBytes (the module's own memory limit; it then
// fails or not exactly as before), and for every file the decoder
// refuses (the module refuses it too, with its own error code and
// detail), so that the native decode never accepts or refuses a file
// differently from the sandbox.
func hostDecode(file []byte, sum [32]byte, memoryBytes uint64) (parts [][]byte, ok bool) {
	lim := limits.Default()
	info, err := imagex.DecodeConfig(file, lim)
	if err != nil || info.Format != imagex.JPEG || uint64(info.DecodeBytes)+uint64(len(file)) > memoryBytes {
		return nil, false
	}
	img, err := imagex.DecodeLumaInfo(file, info, lim, facts.VerifyShortSide)
	if err != nil || img.Orientation < 1 || img.Orientation > 8 {
		return nil, false
	}
	h := wire.DecodedHeader{SHA256: hex.EncodeToString(sum[:]), Format: string(img.Format), Width: img.Width, Height: img.Height,
		Orientation: img.Orientation, Scale: img.Scale, C2PAManifest: sniff.MayCarry(file)}
	parts = [][]byte{nil, nil, packed(img.Luma)}
	if cb, cr := img.Chroma(); cb != nil && cr != nil {
		if cb.Width != cr.Width || cb.Height != cr.Height {
			return nil, false
		}
		h.ChromaWidth, h.ChromaHeight = cb.Width, cb.Height
		parts = append(parts, packed(cb), packed(cr))
	}
	js, err := json.Marshal(h)
	if err != nil {
		return nil, false
	}
	parts[0] = binary.LittleEndian.AppendUint32(nil, uint32(len(js)))
	parts[1] = js
	return parts, true
}

// packed returns l's rows without padding (l.Pix itself when it has
// none).
func packed(l *imagex.Luma) []byte {
	if l.Stride == l.Width {
		return l.Pix[:l.Width*l.Height]
	}
	out := make([]byte, 0, l.Width*l.Height)
	for y := range l.Height {
		out = append(out, l.Pix[y*l.Stride:y*l.Stride+l.Width]...)
	}
	return out
}
