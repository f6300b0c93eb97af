package httpapi

import (
	"errors"
	"testing"
)

func TestDecodeJSONBody(t *testing.T) {
	tests := []struct {
		name        string
		contentType string
		body        string
		wantStatus  int // 0 = success
		wantCode    string
		wantField   string
	}{
		{"ok", "application/json", `{"email":"a@b.co","password":"x"}`, 0, "", ""},
		{"ok with charset", "application/json; charset=utf-8", `{"email":"a"}`, 0, "", ""},
		{"ok with surrounding space", "application/json", " \n{\"email\":\"a\"}\n ", 0, "", ""},
		{"no content type", "", `{}`, 415, CodeUnsupportedMediaType, ""},
		{"form", "application/x-www-form-urlencoded", `email=a`, 415, CodeUnsupportedMediaType, ""},
		{"too large", "application/json", `{"email":"` + string(make([]byte, 100)) + `"}`, 413, CodeBodyTooLarge, ""},
		{"empty", "application/json", ``, 400, CodeMalformedJSON, ""},
		{"syntax", "application/json", `{"email":`, 400, CodeMalformedJSON, ""},
		{"trailing", "application/json", `{"email":"a"} x`, 400, CodeMalformedJSON, ""},
		{"array", "application/json", `["a"]`, 400, CodeMalformedJSON, ""},
		{"wrong type", "application/json", `{"email":1}`, 400, CodeValidation, "email"},
		{"unknown", "application/json", `{"email":"a","role":"admin"}`, 400, CodeUnknownField, "role"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var req loginRequest
			err := decodeJSONBody([]byte(tc.contentType), []byte(tc.body), 80, &req)
			if tc.wantStatus == 0 {
				if err != nil {
					t.Fatalf("decode = %v, want nil", err)
				}
				if req.Email == "" {
					t.Errorf("decoded email is empty")
				}
				return
			}
			var p *Problem
			if !errors.As(err, &p) {
				t.Fatalf("decode = %v, want *Problem", err)
			}
			if p.Status != tc.wantStatus || p.Code != tc.wantCode || p.Field != tc.wantField {
				t.Errorf("problem = %d %s field %q, want %d %s field %q", p.Status, p.Code, p.Field, tc.wantStatus, tc.wantCode, tc.wantField)
			}
		})
	}
}

// fuzzDecode checks the decoder contract on arbitrary bytes: it never
// panics, and it either succeeds or returns a 4xx *Problem.
func fuzzDecode[T any](f *testing.F, seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var v T
		err := decodeJSONBody([]byte("application/json"), []byte(body), DefaultMaxJSONBody, &v)
		if err == nil {
			return
		}
		var p *Problem
		if !errors.As(err, &p) {
			t.Fatalf("decode(%q) = %T %v, want *Problem", body, err, err)
		}
		if p.Status < 400 || p.Status > 499 || p.Code == "" {
			t.Fatalf("decode(%q) = problem %d %q, want a 4xx with a code", body, p.Status, p.Code)
		}
	})
}

func FuzzDecodeRegister(f *testing.F) {
	fuzzDecode[registerRequest](f,
		`{"email":"a@b.co","password":"password1","org_name":"O","org_type":"individual"}`,
		`{"email":1}`, `{"x":null}`, `{}`, `[]`, `{"email":"\u0000"}`, `{"password":"`+"\xff"+`"}`)
}

func FuzzDecodeLogin(f *testing.F) {
	fuzzDecode[loginRequest](f, `{"email":"a@b.co","password":"p"}`, `{"email":"a"}{}`, `null`)
}

func FuzzDecodeResetPassword(f *testing.F) {
	fuzzDecode[resetPasswordRequest](f, `{"token":"abc","password":"new password"}`, `{"token":["a"]}`)
}

func FuzzDecodeCreateAPIKey(f *testing.F) {
	fuzzDecode[createAPIKeyRequest](f, `{"name":"k","scopes":["sign","read"]}`, `{"scopes":"sign"}`, `{"scopes":[1]}`)
}

func FuzzDecodeCreateSigningKey(f *testing.F) {
	fuzzDecode[createSigningKeyRequest](f, `{"name":"cam","origin_type":"camera_image","device_id":"d","device_info":"i"}`, `{"name":{}}`)
}
