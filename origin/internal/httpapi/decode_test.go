package httpapi

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/provenant/provenant/shared/wire"
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
		{"case variant", "application/json", `{"email":"a","EMAIL":"b"}`, 400, CodeUnknownField, "EMAIL"},
		{"case variant only", "application/json", `{"Email":"a"}`, 400, CodeUnknownField, "Email"},
		{"long s folds to s in v1", "application/json", `{"email":"a","paſſword":"x"}`, 400, CodeUnknownField, "paſſword"},
		{"duplicate", "application/json", `{"email":"a","email":"b"}`, 400, CodeDuplicateField, "email"},
		{"invalid utf-8", "application/json", "{\"email\":\"a\",\"password\":\"\xff\"}", 400, CodeMalformedJSON, "password"},
		{"lone surrogate", "application/json", `{"email":"a","password":"\ud800"}`, 400, CodeMalformedJSON, "password"},
		{"null", "application/json", `null`, 400, CodeMalformedJSON, ""},
		{"string", "application/json", `"str"`, 400, CodeMalformedJSON, ""},
		{"number", "application/json", `1`, 400, CodeMalformedJSON, ""},
		{"empty array", "application/json", ` []`, 400, CodeMalformedJSON, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var req wire.LoginRequest
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
// panics; it either succeeds or returns a 4xx *Problem; and whatever it
// accepts is strict JSON (checked independently by strictReference) that
// decodes to the same value as encoding/json would give.
func fuzzDecode[T any](f *testing.F, seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var v T
		err := decodeJSONBody([]byte("application/json"), []byte(body), DefaultMaxJSONBody, &v)
		if err == nil {
			var ref T
			if rerr := strictReference([]byte(body), &ref); rerr != nil {
				t.Fatalf("decode(%q) accepted a body the strict reference refuses: %v", body, rerr)
			}
			if !reflect.DeepEqual(v, ref) {
				t.Fatalf("decode(%q) = %+v, reference = %+v", body, v, ref)
			}
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

// strictReference decodes body into v with encoding/json after checking,
// independently of the decoder under test, what strictness requires: valid
// UTF-8 with no lone surrogate escape, a top-level object whose member
// names are exactly v's JSON names, and no object anywhere with a repeated
// member name.
func strictReference(body []byte, v any) error {
	if !utf8.Valid(body) {
		return errors.New("invalid UTF-8")
	}
	known := map[string]bool{}
	rt := reflect.TypeOf(v).Elem()
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		known[name] = true
	}
	dec := stdjson.NewDecoder(bytes.NewReader(body))
	type frame struct {
		object  bool
		wantKey bool
		seen    map[string]bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if len(stack) == 0 {
			if d, ok := tok.(stdjson.Delim); !ok || d != '{' {
				return errors.New("top level is not an object")
			}
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.wantKey {
			if d, ok := tok.(stdjson.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].wantKey = true
				}
				continue
			}
			key := tok.(string)
			if top.seen[key] {
				return errors.New("duplicate member " + key)
			}
			if len(stack) == 1 && !known[key] {
				return errors.New("unknown member " + key)
			}
			top.seen[key] = true
			top.wantKey = false
			continue
		}
		switch d, _ := tok.(stdjson.Delim); d {
		case '{':
			stack = append(stack, &frame{object: true, wantKey: true, seen: map[string]bool{}})
			continue
		case '[':
			stack = append(stack, &frame{})
			continue
		case ']':
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].wantKey = true
		}
	}
	if bytes.Contains(body, []byte(`\u`)) && loneSurrogate(body) {
		return errors.New("lone surrogate escape")
	}
	return stdjson.Unmarshal(body, v)
}

// loneSurrogate reports whether any \uD800-\uDFFF escape in body is not
// part of a high-low pair (a coarse scan; escaped backslashes are skipped).
func loneSurrogate(body []byte) bool {
	hex4 := func(b []byte) (rune, bool) {
		if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(b[2:6]), 16, 16)
		return rune(n), err == nil
	}
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		r, ok := hex4(body[i:])
		if !ok {
			i++ // skip the escaped character, e.g. \\
			continue
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			lo, ok := hex4(body[i+6:])
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		default:
			i += 5
		}
	}
	return false
}

func FuzzDecodeRegister(f *testing.F) {
	fuzzDecode[wire.RegisterAccountRequest](f,
		`{"email":"a@b.co","password":"password1","org_name":"O","org_type":"individual"}`,
		`{"email":1}`, `{"x":null}`, `{}`, `[]`, `{"email":"\u0000"}`, `{"password":"`+"\xff"+`"}`,
		`{"email":"a","EMAIL":"b"}`, `{"email":"a","email":"b"}`, `{"org_name":"\ud800"}`, `{"org_name":"\ud83d\ude00"}`)
}

func FuzzDecodeLogin(f *testing.F) {
	fuzzDecode[wire.LoginRequest](f, `{"email":"a@b.co","password":"p"}`, `{"email":"a"}{}`, `null`, `{"paſſword":"p"}`)
}

func FuzzDecodeResetPassword(f *testing.F) {
	fuzzDecode[wire.ResetPasswordRequest](f, `{"token":"abc","password":"new password"}`, `{"token":["a"]}`)
}

func FuzzDecodeCreateAPIKey(f *testing.F) {
	fuzzDecode[wire.CreateAPIKeyRequest](f, `{"name":"k","scopes":["sign","read"]}`, `{"scopes":"sign"}`, `{"scopes":[1]}`,
		`{"scopes":["read"],"SCOPES":["sign","read","webhooks"]}`, `{"ſcopes":["read"]}`, `{"scopes":["read"],"scopes":["sign"]}`)
}

func FuzzDecodeCreateSigningKey(f *testing.F) {
	fuzzDecode[wire.CreateSigningKeyRequest](f, `{"name":"cam","origin_type":"camera_image","device_id":"d","device_info":"i"}`, `{"name":{}}`)
}

func FuzzDecodeUpdateWebhook(f *testing.F) {
	fuzzDecode[wire.UpdateWebhookRequest](f, `{"url":"https://example.com/h","events":["record.signed"],"active":false}`,
		`{"events":null}`, `{"active":true,"active":false}`, `{"events":[{"a":1,"a":2}]}`)
}

// TestDecodeRequestTimes: a *time.Time member of a request (the cutoff of
// wire.RevokeSigningKeyRequest, the type the SDK sends) is read as
// time.Parse reads the RFC3339Nano layout; "", null and an absent member
// leave it nil; any other value is the same problem as the member's own
// validation gives: 400 validation_failed naming compromised_since, "must
// be an RFC 3339 timestamp".
func TestDecodeRequestTimes(t *testing.T) {
	notTime := FieldProblem("compromised_since", "must be an RFC 3339 timestamp")
	tests := []struct {
		name string
		body string
		want string // RFC3339Nano of the decoded cutoff; "" for nil
		err  *Problem
	}{
		{"utc", `{"compromised_since":"2026-03-04T10:00:00Z"}`, "2026-03-04T10:00:00Z", nil},
		{"offset and fraction", `{"compromised_since":"2026-03-04T10:00:00.25+02:00"}`, "2026-03-04T10:00:00.25+02:00", nil},
		{"with reason", `{"reason":"stolen","compromised_since":"2026-03-04T10:00:00Z"}`, "2026-03-04T10:00:00Z", nil},
		{"absent", `{"reason":"stolen"}`, "", nil},
		{"empty string", `{"compromised_since":""}`, "", nil},
		{"null", `{"compromised_since":null}`, "", nil},
		{"not a time", `{"compromised_since":"last tuesday"}`, "", notTime},
		{"date only", `{"compromised_since":"2026-03-04"}`, "", notTime},
		{"number", `{"compromised_since":1767225600}`, "", notTime},
		{"object", `{"compromised_since":{}}`, "", notTime},
		{"unknown member still refused", `{"when":"now"}`, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var req wire.RevokeSigningKeyRequest
			err := decodeJSONBody([]byte("application/json"), []byte(tc.body), DefaultMaxJSONBody, &req)
			if tc.name == "unknown member still refused" {
				var p *Problem
				if !errors.As(err, &p) || p.Code != CodeUnknownField {
					t.Fatalf("decode = %v, want unknown_field", err)
				}
				return
			}
			if tc.err != nil {
				var p *Problem
				if !errors.As(err, &p) {
					t.Fatalf("decode = %v, want *Problem", err)
				}
				if !reflect.DeepEqual(p, tc.err) {
					t.Errorf("problem = %+v, want %+v", p, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("decode = %v", err)
			}
			got := ""
			if req.CompromisedSince != nil {
				got = req.CompromisedSince.Format(time.RFC3339Nano)
			}
			if got != tc.want {
				t.Errorf("compromised_since = %q, want %q", got, tc.want)
			}
		})
	}
}

// FuzzDecodeRequestTime holds the time rule to time.Parse: a string member
// decodes to a time exactly when time.Parse(time.RFC3339Nano) reads it (or
// it is empty), and to the same instant. Seeds: testdata/fuzz.
func FuzzDecodeRequestTime(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		body, err := stdjson.Marshal(map[string]string{"compromised_since": s})
		if err != nil || !utf8.ValidString(s) {
			t.Skip()
		}
		var req wire.RevokeSigningKeyRequest
		derr := decodeJSONBody([]byte("application/json"), body, DefaultMaxJSONBody, &req)
		want, perr := time.Parse(time.RFC3339Nano, s)
		switch {
		case s == "":
			if derr != nil || req.CompromisedSince != nil {
				t.Fatalf("decode(%q) = %v, %v; want nil, nil", s, req.CompromisedSince, derr)
			}
		case perr != nil:
			var p *Problem
			if !errors.As(derr, &p) || p.Code != CodeValidation || p.Field != "compromised_since" {
				t.Fatalf("decode(%q) = %v; time.Parse refuses it (%v), want validation_failed on compromised_since", s, derr, perr)
			}
		default:
			if derr != nil || req.CompromisedSince == nil || !req.CompromisedSince.Equal(want) {
				t.Fatalf("decode(%q) = %v, %v; want %v", s, req.CompromisedSince, derr, want)
			}
		}
	})
}
