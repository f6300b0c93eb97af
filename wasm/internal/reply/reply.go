// Package reply is the JSON envelope both WebAssembly modules (the
// verifier, wasm/, and the C2PA module, wasm/c2pa) answer in:
// {"ok":true,…} or {"ok":false,"error":{"code","detail"}}, and the strict
// decoding of their JSON inputs. It encodes and decodes through
// wasm/internal/wirejson, which answers byte for byte as encoding/json
// would, so that the modules leave encoding/json out.
package reply

import (
	"errors"

	"github.com/provenant/provenant/wasm/internal/wirejson"
)

// Error codes of a failed call ("ok": false).
const (
	CodeBadInput     = "bad_input"
	CodeUnsupported  = "unsupported_format"
	CodeTooLarge     = "image_too_large"
	CodeInvalidImage = "invalid_image"
)

type callError struct {
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

type failure struct {
	OK    bool      `json:"ok"`
	Error callError `json:"error"`
}

// Fail is a failed call's answer.
func Fail(code, detail string) []byte {
	b, _ := wirejson.Marshal(failure{Error: callError{Code: code, Detail: detail}})
	return b
}

// OK is v as JSON (v carries "ok": true), or a bad_input failure when v
// cannot be encoded.
func OK(v any) []byte {
	b, err := wirejson.Marshal(v)
	if err != nil {
		return Fail(CodeBadInput, err.Error())
	}
	return b
}

// ErrNoInput is a call made without an input buffer.
var ErrNoInput = errors.New("no input buffer (alloc it first)")

// DecodeStrict decodes one JSON value into v, refusing unknown fields
// and trailing data.
func DecodeStrict(in []byte, v any) error {
	if in == nil {
		return ErrNoInput
	}
	return wirejson.UnmarshalStrict(in, v)
}
