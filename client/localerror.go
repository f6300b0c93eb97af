package client

import (
	"errors"

	"github.com/provenant/provenant/shared/imagex"
)

// LocalError is why [Client.VerifyLocal] could not analyse a file on this
// machine: a sentence for people and a stable Code for programs, the same
// code the origin's POST /api/v1/verify answers for that file (so a
// script branches alike on both paths). The wrapped error keeps the
// verifier's own diagnosis for errors.Is and logs.
type LocalError struct {
	// Code is the stable code: unsupported_image_format, empty_file,
	// body_too_large, too_many_pixels, corrupt_image or invalid_file.
	Code string
	// Message says what happened in plain words, without the code.
	Message string
	err     error
}

// Error returns the message and the code, never internal package names.
func (e *LocalError) Error() string { return e.Message + " (" + e.Code + ")" }

// Unwrap returns the verifier's own error.
func (e *LocalError) Unwrap() error { return e.err }

// Unsupported reports whether the file is of a kind the local verifier
// does not read at all (a video, a TIFF…), which the origin's
// POST /api/v1/verify may still verify.
func (e *LocalError) Unsupported() bool { return e.Code == CodeUnsupportedImage }

// Codes of a LocalError.
const (
	CodeUnsupportedImage = "unsupported_image_format"
	CodeEmptyFile        = "empty_file"
	CodeFileTooLarge     = "body_too_large"
	CodeTooManyPixels    = "too_many_pixels"
	CodeCorruptImage     = "corrupt_image"
	CodeInvalidFile      = "invalid_file"
)

// localError maps an analysis failure to a LocalError.
func localError(err error) *LocalError {
	code, msg := CodeInvalidFile, "the file could not be analysed on this machine"
	switch {
	case errors.Is(err, imagex.ErrUnsupportedFormat):
		code, msg = CodeUnsupportedImage, "the local verifier reads JPEG, PNG, GIF and WebP pictures only, and this file is none of them (a video is verified by the origin)"
	case errors.Is(err, imagex.ErrEmpty):
		code, msg = CodeEmptyFile, "the file is empty"
	case errors.Is(err, imagex.ErrTooLarge):
		code, msg = CodeFileTooLarge, "the file is larger than the verifier accepts"
	case errors.Is(err, imagex.ErrTooManyPixels):
		code, msg = CodeTooManyPixels, "the picture has more pixels than the verifier accepts"
	case errors.Is(err, imagex.ErrCorrupt):
		code, msg = CodeCorruptImage, "the picture is corrupt or truncated"
	}
	return &LocalError{Code: code, Message: msg, err: err}
}
