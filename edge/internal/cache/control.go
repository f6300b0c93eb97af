package cache

import (
	"strconv"
	"strings"
	"time"
)

// maxDelta caps delta-seconds as RFC 9111 §1.2.2 allows (2^31 s): larger
// values, including ones that overflow, mean "as long as possible".
const maxDelta = time.Duration(1<<31) * time.Second

// directives is a parsed Cache-Control response header.
type directives struct {
	maxAge, sMaxAge time.Duration
	swr, sie        time.Duration // stale-while-revalidate, stale-if-error
	hasMaxAge       bool
	hasSMaxAge      bool
	noStore         bool
	noCache         bool
	private         bool
	public          bool
	mustRevalidate  bool // also proxy-revalidate
	immutable       bool
	noTransform     bool
}

// parseCacheControl reads Cache-Control field values (RFC 9111 §5.2).
// Directive names are case-insensitive; values are tokens or quoted
// strings (which may hold commas). The qualified forms no-cache="f" and
// private="f" are taken as their unqualified, stricter forms. A max-age
// or s-maxage that is not delta-seconds makes the response stale (0), as
// §4.2.1 asks; a malformed stale-* directive is ignored. When a directive
// repeats, the most restrictive (shortest) value wins.
func parseCacheControl(values ...string) directives {
	var d directives
	for _, v := range values {
		for len(v) > 0 {
			var name, val string
			name, val, v = nextDirective(v)
			if name == "" {
				continue
			}
			switch strings.ToLower(name) {
			case "max-age":
				d.maxAge, d.hasMaxAge = minDelta(d.maxAge, d.hasMaxAge, val), true
			case "s-maxage":
				d.sMaxAge, d.hasSMaxAge = minDelta(d.sMaxAge, d.hasSMaxAge, val), true
			case "stale-while-revalidate":
				if n, ok := parseDelta(val); ok {
					d.swr = n
				}
			case "stale-if-error":
				if n, ok := parseDelta(val); ok {
					d.sie = n
				}
			case "no-store":
				d.noStore = true
			case "no-cache":
				d.noCache = true
			case "private":
				d.private = true
			case "public":
				d.public = true
			case "must-revalidate", "proxy-revalidate":
				d.mustRevalidate = true
			case "immutable":
				d.immutable = true
			case "no-transform":
				d.noTransform = true
			}
		}
	}
	return d
}

// minDelta folds a repeated max-age: an invalid value counts as 0.
func minDelta(cur time.Duration, had bool, val string) time.Duration {
	n, ok := parseDelta(val)
	if !ok {
		n = 0
	}
	if had && cur < n {
		return cur
	}
	return n
}

// nextDirective splits the first directive off s. It never fails: bytes
// that fit no directive are skipped up to the next comma.
func nextDirective(s string) (name, val, rest string) {
	s = strings.TrimLeft(s, " \t,")
	i := 0
	for i < len(s) && s[i] != '=' && s[i] != ',' {
		i++
	}
	name = strings.TrimSpace(s[:i])
	if i == len(s) || s[i] == ',' {
		return name, "", s[i:]
	}
	s = strings.TrimLeft(s[i+1:], " \t")
	if strings.HasPrefix(s, `"`) {
		var b strings.Builder
		j := 1
		for ; j < len(s) && s[j] != '"'; j++ {
			if s[j] == '\\' && j+1 < len(s) {
				j++
			}
			b.WriteByte(s[j])
		}
		rest = s[min(j+1, len(s)):]
		// Anything between the closing quote and the next comma is junk.
		if k := strings.IndexByte(rest, ','); k >= 0 {
			rest = rest[k:]
		} else {
			rest = ""
		}
		return name, b.String(), rest
	}
	j := strings.IndexByte(s, ',')
	if j < 0 {
		j = len(s)
	}
	return name, strings.TrimSpace(s[:j]), s[j:]
}

// parseDelta reads delta-seconds (1*DIGIT), capped at maxDelta.
func parseDelta(v string) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n >= uint64(maxDelta/time.Second) {
		return maxDelta, true
	}
	return time.Duration(n) * time.Second, true
}

// String writes d back as a Cache-Control value that parses to d.
func (d directives) String() string {
	var parts []string
	add := func(cond bool, s string) {
		if cond {
			parts = append(parts, s)
		}
	}
	secs := func(t time.Duration) string { return strconv.FormatInt(int64(t/time.Second), 10) }
	add(d.public, "public")
	add(d.private, "private")
	add(d.noStore, "no-store")
	add(d.noCache, "no-cache")
	add(d.mustRevalidate, "must-revalidate")
	add(d.immutable, "immutable")
	add(d.noTransform, "no-transform")
	add(d.hasMaxAge, "max-age="+secs(d.maxAge))
	add(d.hasSMaxAge, "s-maxage="+secs(d.sMaxAge))
	add(d.swr > 0, "stale-while-revalidate="+secs(d.swr))
	add(d.sie > 0, "stale-if-error="+secs(d.sie))
	return strings.Join(parts, ", ")
}
