package main

import (
	"bytes"
	"image"
	"image/jpeg"
)

// jpegOf is m saved as a JPEG at quality q: how the studies turn an
// edited picture back into the file a user would upload.
func jpegOf(m image.Image, q int) ([]byte, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: q}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
