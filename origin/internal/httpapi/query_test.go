package httpapi

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/validate"
)

func TestPageParams(t *testing.T) {
	good := base64.RawURLEncoding.EncodeToString([]byte("0000018b2f1c2a00/0b6e7c1a-2f43-4c59-9a59-3d2b1c6f7e80"))
	tests := []struct {
		name      string
		query     string
		extra     []string
		wantCode  string // "" = accepted
		wantField string
	}{
		{"none", "", nil, "", ""},
		{"limit and cursor", "limit=10&cursor=" + good, nil, "", ""},
		{"extra allowed", "status=failed", []string{"status"}, "", ""},
		{"unknown", "limit=10&orgin_type=x", nil, CodeUnknownParameter, "orgin_type"},
		{"case variant", "LIMIT=10", nil, CodeUnknownParameter, "LIMIT"},
		{"extra not allowed here", "status=failed", nil, CodeUnknownParameter, "status"},
		{"repeated", "limit=10&limit=20", nil, CodeDuplicateParameter, "limit"},
		{"repeated empty", "cursor=&cursor=", nil, CodeDuplicateParameter, "cursor"},
		{"bad limit", "limit=0", nil, CodeValidation, "limit"},
		{"cursor not base64", "cursor=!!!", nil, CodeInvalidCursor, "cursor"},
		{"cursor padded", "cursor=YQ%3D%3D", nil, CodeInvalidCursor, "cursor"},
		{"cursor binary", "cursor=zzzz", nil, CodeInvalidCursor, "cursor"},
		{"cursor empty is the first page", "cursor=", nil, "", ""},
		{"cursor too long", "cursor=" + strings.Repeat("YWFh", 400), nil, CodeInvalidCursor, "cursor"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ctx fasthttp.RequestCtx
			ctx.Request.SetRequestURI("/x?" + tc.query)
			_, _, err := PageParams(&ctx, tc.extra...)
			if tc.wantCode == "" {
				if err != nil {
					t.Fatalf("PageParams(%q) = %v, want nil", tc.query, err)
				}
				return
			}
			var p *Problem
			if !errors.As(err, &p) {
				t.Fatalf("PageParams(%q) = %v, want *Problem", tc.query, err)
			}
			if p.Status != 400 || p.Code != tc.wantCode || p.Field != tc.wantField {
				t.Errorf("problem = %d %s field %q, want 400 %s field %q", p.Status, p.Code, p.Field, tc.wantCode, tc.wantField)
			}
			if len(p.Errors) != 1 || p.Errors[0].Field != tc.wantField {
				t.Errorf("errors = %+v, want one for %q", p.Errors, tc.wantField)
			}
		})
	}
}

func TestValidationProblemListsEveryField(t *testing.T) {
	err := validate.Errors{{Field: "email", Reason: "is required"}, {Field: "org_name", Reason: "must be valid UTF-8"}}
	p, internal := problemFor(err)
	if internal {
		t.Fatalf("problemFor(Errors) reported internal")
	}
	if p.Status != 400 || p.Code != CodeValidation || p.Field != "email" || p.Detail != "email is required" {
		t.Errorf("problem = %d %s field %q detail %q, want 400 %s field email", p.Status, p.Code, p.Field, p.Detail, CodeValidation)
	}
	want := []FieldIssue{{Field: "email", Detail: "email is required"}, {Field: "org_name", Detail: "org_name must be valid UTF-8"}}
	if len(p.Errors) != len(want) {
		t.Fatalf("errors = %+v, want %+v", p.Errors, want)
	}
	for i := range want {
		if p.Errors[i] != want[i] {
			t.Errorf("errors[%d] = %+v, want %+v", i, p.Errors[i], want[i])
		}
	}
}
