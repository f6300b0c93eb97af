//go:build !turbo

package main

import "github.com/provenant/provenant/shared/imagex"

// jpegCodec is the sign path's JPEG codec of this build: pure Go. Build
// with -tags turbo (make run-turbo) for libjpeg-turbo.
func jpegCodec() imagex.JPEGCodec { return imagex.StdJPEG{} }
