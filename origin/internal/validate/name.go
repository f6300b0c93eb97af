package validate

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/secure/precis"
	"golang.org/x/text/unicode/norm"
)

// Name-rule reasons, constant and client-safe (docs/verification.md, "Who
// a signer is"). Each names the rule a refused value broke, never the
// value.
const (
	ReasonNameUTF8      = "must be valid UTF-8"
	ReasonNameControl   = "must not contain control characters or line breaks"
	ReasonNameBidi      = "must not contain bidirectional formatting characters (such as U+202E)"
	ReasonNameInvisible = "must not contain invisible formatting characters (such as zero-width spaces or joiners)"
	ReasonNameSpace     = "must use ordinary spaces (U+0020) only"
	ReasonNameUnknown   = "must not contain unassigned or private-use characters"
	ReasonNameSymbol    = "must not contain symbols such as check marks, badges or emoji (©, ® and ™ are allowed)"
	ReasonNameMarks     = "must not stack more than 3 combining marks on one character"
	ReasonNameScripts   = "must not mix writing systems (for example Latin with Cyrillic or Greek letters)"
	ReasonNamePrecis    = "contains characters not allowed in names"
)

// MaxCombiningRun bounds the combining marks following one base character
// after NFC: real orthographies need at most a few, "zalgo" text dozens.
const MaxCombiningRun = 3

// nameErr is the *FieldError a name rule produces; reason is one of the
// ReasonName* constants. Unprocessable marks it as a refusal of
// well-formed but misleading text (422) rather than a malformed request
// (400: invalid UTF-8 and control characters, refused in every text field).
func nameErr(field, reason string) error {
	return &FieldError{Field: field, Reason: reason, Unprocessable: true}
}

// freeform is the PRECIS FreeformClass profile (RFC 8264) with NFC, the
// last guard of Name after the explicit rules: it refuses what they do
// not name (for example old Hangul jamo or other code points PRECIS
// disallows). Profiles are immutable and safe for concurrent use.
var freeform = precis.NewFreeform(precis.Norm(norm.NFC))

// Name checks and normalises a name a signer declares and others will be
// shown: an organisation name, a signing key name, a device id. It
// returns the value with surrounding spaces trimmed, in Unicode NFC, or a
// *FieldError whose Reason names the broken rule:
//
//   - valid UTF-8, at most maxRunes characters (after NFC; <= 0: no bound);
//   - no control characters (C0, DEL, C1) and no line or paragraph
//     separators (U+2028, U+2029): they forge line breaks;
//   - no bidirectional formatting characters (U+061C, U+200E, U+200F,
//     U+202A-U+202E, U+2066-U+2069): they reorder what is displayed;
//   - no other invisible formatting characters (Unicode category Cf: zero
//     width space and joiners, soft hyphen, BOM, tag characters);
//   - spaces are U+0020 only (no no-break, ideographic or other spaces);
//   - no unassigned or private-use code points;
//   - no symbols of category So or enclosing marks (check marks, seals,
//     emoji, keycaps) except ©, ® and ™ used in trade names: the
//     interface draws trust marks, a name must not;
//   - at most MaxCombiningRun combining marks on one character;
//   - one writing system: letters of at most one script besides Common and
//     Inherited, except the combinations of UTS #39's "highly restrictive"
//     level (Latin with Han and Hiragana/Katakana, with Han and Bopomofo,
//     or with Han and Hangul), so "Rеuters" with a Cyrillic "е" is refused;
//   - finally, the PRECIS FreeformClass (RFC 8264) accepts it.
//
// An empty value (after trimming) is returned as "" without error; callers
// that require a value check it.
func Name(field, v string, maxRunes int) (string, error) {
	if !utf8.ValidString(v) {
		return "", Field(field, ReasonNameUTF8)
	}
	// Only spaces are trimmed: a trailing line break or other control is
	// refused, not silently dropped.
	v = strings.Trim(norm.NFC.String(v), " ")
	if v == "" {
		return "", nil
	}
	if reason := nameRule(v); reason == ReasonNameControl {
		// Malformed for every text field of the API (validate.Text), so
		// 400 like the others; the rules below are the names' own (422).
		return "", Field(field, reason)
	} else if reason != "" {
		return "", nameErr(field, reason)
	}
	if maxRunes > 0 && utf8.RuneCountInString(v) > maxRunes {
		return "", Field(field, fmt.Sprintf("must be at most %d characters", maxRunes))
	}
	if _, err := freeform.String(v); err != nil {
		return "", nameErr(field, ReasonNamePrecis)
	}
	return v, nil
}

// allowedSymbols are the So characters legitimately part of trade names.
func allowedSymbol(r rune) bool { return r == '©' || r == '®' || r == '™' }

// IsBidiControl reports whether r is a bidirectional formatting character:
// ALM (U+061C), LRM/RLM (U+200E, U+200F), the embeddings and overrides
// U+202A-U+202E and the isolates U+2066-U+2069.
func IsBidiControl(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// nameRule returns the reason v (NFC, trimmed) breaks a name rule, or "".
func nameRule(v string) string {
	marks := 0
	scripts := map[string]bool{}
	for _, r := range v {
		switch {
		case IsControl(r) || r == 0x2028 || r == 0x2029:
			return ReasonNameControl
		case IsBidiControl(r):
			return ReasonNameBidi
		case unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Variation_Selector, r):
			return ReasonNameInvisible
		case unicode.Is(unicode.Zs, r) && r != ' ':
			return ReasonNameSpace
		case unicode.Is(unicode.Co, r) || !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs):
			return ReasonNameUnknown
		case (unicode.Is(unicode.So, r) && !allowedSymbol(r)) || unicode.Is(unicode.Me, r):
			return ReasonNameSymbol
		}
		if unicode.Is(unicode.Mn, r) {
			marks++
			if marks > MaxCombiningRun {
				return ReasonNameMarks
			}
		} else {
			marks = 0
		}
		if s := scriptOf(r); s != "" {
			scripts[s] = true
		}
	}
	if !allowedScripts(scripts) {
		return ReasonNameScripts
	}
	return ""
}

// scriptOf returns the Unicode script of a letter or mark, or "" for
// characters of the Common and Inherited scripts (digits, punctuation,
// spaces, combining accents) which go with any script.
func scriptOf(r rune) string {
	if r < 0x80 {
		if r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' {
			return "Latin"
		}
		return ""
	}
	if unicode.In(r, unicode.Common, unicode.Inherited) {
		return ""
	}
	// Scripts are disjoint, so the map's iteration order does not matter.
	for name, tab := range unicode.Scripts {
		if unicode.Is(tab, r) {
			return name
		}
	}
	return ""
}

// highlyRestrictive are the script sets UTS #39 "highly restrictive"
// accepts beyond a single script: Japanese, Chinese and Korean writing
// mixed with Latin.
var highlyRestrictive = [][]string{
	{"Latin", "Han", "Hiragana", "Katakana"},
	{"Latin", "Han", "Bopomofo"},
	{"Latin", "Han", "Hangul"},
}

func allowedScripts(set map[string]bool) bool {
	if len(set) <= 1 {
		return true
	}
	for _, allowed := range highlyRestrictive {
		ok := true
		for s := range set {
			if !contains(allowed, s) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// FoldName returns the comparison key of a display name: two names with
// the same key look alike to a reader. It is the skeleton of skeleton.go
// (case, width, accents, trade-mark symbols and punctuation, Latin,
// Cyrillic and Greek look-alikes): "Reuters", "REUTERS", the full-width
// "Ｒｅｕｔｅｒｓ", "Rëuters", "Réuters" and "Reuters™" fold alike, and so do
// the Latin "ABC" and the all-Cyrillic "АВС".
func FoldName(s string) string { return skeleton(s) }

// SafeDisplay returns s fit to show to people even when it was stored
// before the name rules existed: invalid UTF-8 and every control, line
// separator, bidirectional or other invisible formatting character are
// replaced by U+FFFD, so a legacy name can neither reorder nor break the
// text around it. Values that pass Name come back unchanged.
func SafeDisplay(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !strings.ContainsFunc(s, unsafeDisplay) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unsafeDisplay(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

func unsafeDisplay(r rune) bool {
	return IsControl(r) || r == 0x2028 || r == 0x2029 || IsBidiControl(r) || unicode.Is(unicode.Cf, r)
}
