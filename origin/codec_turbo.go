//go:build turbo

package main

import (
	"github.com/provenant/provenant/internal/turbojpeg"
	"github.com/provenant/provenant/shared/imagex"
)

// jpegCodec is the sign path's JPEG codec of this build: libjpeg-turbo
// (cgo; the build fails without cgo rather than quietly dropping it).
func jpegCodec() imagex.JPEGCodec { return turbojpeg.Codec{} }
