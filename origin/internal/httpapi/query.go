package httpapi

import (
	"encoding/base64"
	"slices"
	"strings"

	"github.com/valyala/fasthttp"
)

// maxCursorLen bounds a page cursor; the cursors the store issues encode
// one index key, far shorter than this.
const maxCursorLen = 1024

// pageParams are the query parameters every list endpoint takes.
var pageParams = []string{"limit", "cursor"}

// CheckQuery refuses a query string that names a parameter outside allowed
// (400 unknown_parameter) or repeats one (400 duplicate_parameter), so a
// misspelt filter ("orgin_type") fails loudly instead of silently listing
// everything, and "?status=a&status=b" cannot mean different things to
// different layers. Every parameter this API takes is single-valued.
func CheckQuery(ctx *fasthttp.RequestCtx, allowed ...string) error {
	var prob *Problem
	seen := make([]string, 0, 8)
	ctx.QueryArgs().VisitAll(func(k, _ []byte) {
		if prob != nil {
			return
		}
		name := string(k)
		if len(name) > maxFieldName {
			name = name[:maxFieldName]
		}
		name = strings.ToValidUTF8(name, "\uFFFD")
		switch {
		case !slices.Contains(allowed, string(k)):
			prob = NewProblem(fasthttp.StatusBadRequest, CodeUnknownParameter, "Unknown query parameter").
				withField(name, name+" is not a query parameter of this endpoint (names are case-sensitive)")
		case slices.Contains(seen, name):
			prob = NewProblem(fasthttp.StatusBadRequest, CodeDuplicateParameter, "Repeated query parameter").
				withField(name, name+" may appear only once")
		default:
			seen = append(seen, name)
		}
	})
	if prob != nil {
		return prob
	}
	return nil
}

// validCursor reports whether c has the shape of a cursor the store issues:
// canonical unpadded base64url of a printable-ASCII index key suffix. It
// catches mangled and hand-made cursors before they reach the store, where
// a decodable but foreign cursor would silently answer an empty page.
func validCursor(c string) bool {
	if len(c) > maxCursorLen {
		return false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(c)
	if err != nil || len(b) == 0 {
		return false
	}
	for _, x := range b {
		if x < 0x21 || x > 0x7e {
			return false
		}
	}
	return true
}
