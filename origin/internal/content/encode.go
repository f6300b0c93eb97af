package content

import (
	"bytes"
	"fmt"
	"image"
	"image/png"

	"github.com/provenant/provenant/shared/imagex"
)

// Output encoding decisions (docs/api.md, "Sign"):
//
//   - JPEG in, JPEG out at the quality estimated from the input's
//     luminance quantisation table (clamped to [MinJPEGQuality, 100];
//     DefaultJPEGQuality when the table cannot be read).
//   - PNG in, PNG out (lossless, fastest deflate level).
//   - GIF and WebP in, PNG out: Go has no WebP encoder, and a GIF palette
//     would quantise the watermark away. Only the first GIF frame is kept.
const (
	DefaultJPEGQuality = 90
	MinJPEGQuality     = 50
)

// stdLumaQuant is the IJG/Annex K luminance table in zig-zag order, the
// table image/jpeg and libjpeg scale by quality.
var stdLumaQuant = [64]int{
	16, 11, 12, 14, 12, 10, 16, 14, 13, 14, 18, 17, 16, 19, 24, 40,
	26, 24, 22, 22, 24, 49, 35, 37, 29, 40, 58, 51, 61, 60, 57, 51,
	56, 55, 64, 72, 92, 78, 64, 68, 87, 69, 55, 56, 80, 109, 81, 87,
	95, 98, 103, 104, 103, 62, 77, 113, 121, 112, 100, 120, 92, 101, 103, 99,
}

func scaledQuant(q int) [64]int {
	scale := 200 - 2*q
	if q < 50 {
		scale = 5000 / q
	}
	var t [64]int
	for i, v := range stdLumaQuant {
		x := (v*scale + 50) / 100
		t[i] = min(max(x, 1), 255)
	}
	return t
}

// lumaQuantTable returns the first quantisation table (id 0) of a JPEG, in
// zig-zag order, scanning DQT segments before the first SOS.
func lumaQuantTable(b []byte) ([64]int, bool) {
	var t [64]int
	if len(b) < 4 || b[0] != 0xFF || b[1] != 0xD8 {
		return t, false
	}
	i := 2
	for i+4 <= len(b) {
		if b[i] != 0xFF {
			return t, false
		}
		m := b[i+1]
		if m == 0xFF { // fill byte
			i++
			continue
		}
		if m == 0xDA || m == 0xD9 { // SOS, EOI
			return t, false
		}
		n := int(b[i+2])<<8 | int(b[i+3])
		if n < 2 || i+2+n > len(b) {
			return t, false
		}
		if m == 0xDB {
			seg := b[i+4 : i+2+n]
			for len(seg) > 0 {
				pq, tq := seg[0]>>4, seg[0]&0x0F
				size := 64
				if pq == 1 {
					size = 128
				}
				if len(seg) < 1+size {
					return t, false
				}
				if tq == 0 {
					for k := 0; k < 64; k++ {
						if pq == 1 {
							t[k] = int(seg[1+2*k])<<8 | int(seg[2+2*k])
						} else {
							t[k] = int(seg[1+k])
						}
					}
					return t, true
				}
				seg = seg[1+size:]
			}
		}
		i += 2 + n
	}
	return t, false
}

// EstimateJPEGQuality returns the IJG quality (1..100) whose scaled
// luminance table is closest (sum of absolute differences) to the JPEG's
// own, and whether a table was found. Encoders with other tables get the
// nearest IJG equivalent.
func EstimateJPEGQuality(b []byte) (int, bool) {
	t, ok := lumaQuantTable(b)
	if !ok {
		return 0, false
	}
	best, bestD := 0, -1
	for q := 1; q <= 100; q++ {
		s := scaledQuant(q)
		d := 0
		for i := range s {
			d += max(s[i]-t[i], t[i]-s[i])
		}
		if bestD < 0 || d < bestD {
			best, bestD = q, d
		}
	}
	return best, true
}

// encodeOutput re-encodes the marked image according to the decisions
// above, JPEG through c (nil: imagex.StdJPEG). It returns the bytes, the
// output format and the JPEG quality used (0 for PNG).
func encodeOutput(c imagex.JPEGCodec, img image.Image, in imagex.Format, original []byte) ([]byte, imagex.Format, int, error) {
	var buf bytes.Buffer
	if in == imagex.JPEG {
		q, ok := EstimateJPEGQuality(original)
		if !ok {
			q = DefaultJPEGQuality
		}
		q = min(max(q, MinJPEGQuality), 100)
		if c == nil {
			c = imagex.StdJPEG{}
		}
		if err := c.EncodeJPEG(&buf, img, q); err != nil {
			return nil, "", 0, fmt.Errorf("content: encode jpeg: %w", err)
		}
		return buf.Bytes(), imagex.JPEG, q, nil
	}
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, "", 0, fmt.Errorf("content: encode png: %w", err)
	}
	return buf.Bytes(), imagex.PNG, 0, nil
}
