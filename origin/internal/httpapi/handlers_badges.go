package httpapi

import (
	"errors"
	"html"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/content"
)

// BadgeCacheControl is the caching of badge images: a revoked record's
// badge changes for every viewer within max-age + stale-while-revalidate
// (one minute), while a page showing the badge many times costs one
// conditional request per half minute.
const BadgeCacheControl = "public, max-age=30, stale-while-revalidate=30"

// maxBadgeLabel bounds the organisation name drawn on a badge (runes).
const maxBadgeLabel = 40

// badgeKind is one of the looks a badge can have.
type badgeKind struct {
	text, colour string
}

// The five record badges. Each has its own text and colour, so the state
// is readable without colour vision as well. A record badge speaks of the
// record, never of a picture: it is an <img> anyone can put beside any
// picture, and it checks none (the widget's record-only state says the
// same), so no state reads "verified".
var (
	badgeVerified = badgeKind{"record anchored", "#2e7d32"}
	badgePending  = badgeKind{"record pending anchoring", "#9a6700"}
	badgeRevoked  = badgeKind{"record revoked", "#b71c1c"}
	// A record whose signing key's revocation makes it not authentic.
	badgeKeyRevoked = badgeKind{"signing key revoked", "#b71c1c"}
	badgeNotFound   = badgeKind{"not found", "#57606a"}
	badgeOrg        = "#0b5cad"
)

func (a *API) registerBadges() {
	a.registerWidget()
	a.registerDemo()
	if a.cfg.Badges == nil {
		return
	}
	a.Handle(Route{Method: "GET", Path: "/api/v1/widget/badge/{record_id}.svg", Auth: Public, CrossOrigin: true}, a.handleBadge)
	a.Handle(Route{Method: "GET", Path: "/api/v1/widget/org-badge/{org_name}.svg", Auth: Public, CrossOrigin: true}, a.handleOrgBadge)
}

// recordOnlyNote ends every found record's badge title: what the badge
// does not say.
const recordOnlyNote = "a signed record; this badge checks no picture shown beside it"

// handleBadge: GET /api/v1/widget/badge/{record_id}.svg. An unknown
// record gets the "not found" badge with a 404, so an <img> still shows
// something meaningful.
func (a *API) handleBadge(ctx *fasthttp.RequestCtx) error {
	st, err := a.cfg.Badges.Badge(Context(ctx), pathParam(ctx, "record_id"))
	kind := badgeNotFound
	status := fasthttp.StatusOK
	switch {
	case errors.Is(err, content.ErrNotFound):
		status = fasthttp.StatusNotFound
	case err != nil:
		return err
	case st.KeyRevoked:
		kind = badgeKeyRevoked
	case st.Revoked:
		kind = badgeRevoked
	case st.Anchored:
		kind = badgeVerified
	default:
		kind = badgePending
	}
	// An anchor on a chain that is not public is said on the badge itself
	// and in full in its title: it is no public timestamp.
	note := ""
	if st.Network != nil && kind == badgeVerified {
		note = "anchored on " + st.Network.Label()
		if !st.Network.Public {
			kind.text += " · local chain"
		}
	}
	if status == fasthttp.StatusOK {
		if note != "" {
			note += "; "
		}
		note += recordOnlyNote
	}
	writeSVG(ctx, status, badgeSVGNote("Provenant", "#24292f", kind.text, kind.colour, note))
	return nil
}

// handleOrgBadge: GET /api/v1/widget/org-badge/{org_name}.svg, the
// organisation's count of signed and anchored records that stand: not
// revoked, and not made inauthentic by their signing key's revocation.
func (a *API) handleOrgBadge(ctx *fasthttp.RequestCtx) error {
	// The router hands over the raw (percent-encoded) segment.
	name, err := url.PathUnescape(pathParam(ctx, "org_name"))
	if err != nil {
		name = pathParam(ctx, "org_name")
	}
	c, err := a.cfg.Badges.OrgCounts(Context(ctx), name)
	if errors.Is(err, content.ErrNotFound) {
		writeSVG(ctx, fasthttp.StatusNotFound, badgeSVG(clip(name, maxBadgeLabel), "#24292f", badgeNotFound.text, badgeNotFound.colour))
		return nil
	}
	if err != nil {
		return err
	}
	plus := ""
	if c.Truncated {
		plus = "+"
	}
	right := strconv.FormatUint(c.Signed, 10) + plus + " signed · " + strconv.FormatUint(c.Anchored, 10) + plus + " anchored"
	// A name is anyone's to type: only a proven domain, held by the one
	// account using the name, lifts the "unverified" label.
	left := "unverified: " + c.OrgName
	if c.VerifiedDomain != "" {
		left = c.OrgName + " (" + c.VerifiedDomain + ")"
	}
	writeSVG(ctx, fasthttp.StatusOK, badgeSVG(clip(left, maxBadgeLabel), "#24292f", right, badgeOrg))
	return nil
}

// writeSVG answers an SVG badge with its validator. The CSP forbids
// scripts should the SVG ever be opened as a document.
func writeSVG(ctx *fasthttp.RequestCtx, status int, body []byte) {
	etag := etagOf(body)
	h := &ctx.Response.Header
	h.Set("ETag", etag)
	h.Set("Cache-Control", BadgeCacheControl)
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	h.SetContentType("image/svg+xml; charset=utf-8")
	if status == fasthttp.StatusOK && notModified(ctx, etag) {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	ctx.SetStatusCode(status)
	ctx.SetBody(body)
}

// clip shortens s to at most n runes, marking the cut with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// textWidth estimates the rendered width of s in 11px Verdana-like text;
// the badge only needs to be roughly right, never to measure fonts.
func textWidth(s string) int {
	return utf8.RuneCountInString(s)*7 + 10
}

// badgeSVG draws a two-part badge. Every text goes through
// html.EscapeString (which escapes <, >, &, ' and "), so no input can
// close an element or an attribute; the document has no script, no link
// and no external reference.
func badgeSVG(left, leftColour, right, rightColour string) []byte {
	return badgeSVGNote(left, leftColour, right, rightColour, "")
}

// badgeSVGNote is badgeSVG with a note appended to the title and the
// accessible label (not drawn), escaped the same way.
func badgeSVGNote(left, leftColour, right, rightColour, note string) []byte {
	lw, rw := textWidth(left), textWidth(right)
	w := lw + rw
	el, er := html.EscapeString(left), html.EscapeString(right)
	label := el + `: ` + er
	if note != "" {
		label += ` — ` + html.EscapeString(note)
	}
	var b strings.Builder
	itoa := strconv.Itoa
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="` + itoa(w) + `" height="20" role="img" aria-label="` + label + `">`)
	b.WriteString(`<title>` + label + `</title>`)
	b.WriteString(`<rect width="` + itoa(lw) + `" height="20" fill="` + leftColour + `"/>`)
	b.WriteString(`<rect x="` + itoa(lw) + `" width="` + itoa(rw) + `" height="20" fill="` + rightColour + `"/>`)
	b.WriteString(`<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">`)
	b.WriteString(`<text x="` + itoa(lw/2) + `" y="14">` + el + `</text>`)
	b.WriteString(`<text x="` + itoa(lw+rw/2) + `" y="14">` + er + `</text>`)
	b.WriteString(`</g></svg>`)
	return []byte(b.String())
}
