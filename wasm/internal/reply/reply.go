// Package reply is the JSON envelope both WebAssembly modules (the
// verifier, wasm/, and the C2PA module, wasm/c2pa) answer in:
// {"ok":true,…} or {"ok":false,"error":{"code","detail"}}, and the strict
// decoding of their JSON inputs.
package reply

import (
	"bytes"
	"encoding/json"
	"errors"
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
	b, _ := json.Marshal(failure{Error: callError{Code: code, Detail: detail}})
	return b
}

// OK is v as JSON (v carries "ok": true), or a bad_input failure when v
// cannot be encoded.
func OK(v any) []byte {
	b, err := json.Marshal(v)
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
	d := json.NewDecoder(bytes.NewReader(in))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}
