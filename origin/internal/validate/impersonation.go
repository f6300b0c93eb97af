package validate

import (
	"strings"
	"unicode"
)

// Reasons a display name imitates the verification label (422).
const (
	ReasonNameFingerprint = "must not contain a key fingerprint or another long hexadecimal number"
	ReasonNameLabel       = "must not imitate the verification label (such as \"verified\", \"official\" or \"domain\" qualifiers, \"(key …)\" or \"unverified organisation\")"
)

// minFingerprintRun is the shortest run of hex digits refused as a key
// fingerprint: half of one (signerid.FingerprintLen is 16), enough to
// pass for it at a glance.
const minFingerprintRun = 8

// DisplayName is Name for the names the verification label shows next to
// what the service itself says (an organisation name, a signing key's
// name): besides Name's rules, it refuses a name that imitates the label
// (docs/verification.md, "Who a signer is"):
//
//   - a key fingerprint, or any run of at least 8 hexadecimal digits with
//     both digits and letters, also when written in groups of digits
//     ("5832517e7b62c4e0", "5832 517e 7b62 c4e0");
//   - a bracketed qualifier naming what the label states: "(verified …)",
//     "(official)", "(domain …)", "(key …)", "[organisation …]";
//   - the label's own phrases: "verified domain", "verified organisation",
//     "unverified", "verified by", "another organisation uses this name",
//     and the like;
//   - a trailing qualifier: a name ending in "verified" or "official", or
//     one whose part after a comma, colon, dash or bar is only such words.
//
// The checks read the name's skeleton (FoldName), so accents, case, width
// and look-alike letters do not get around them. Names that merely
// contain one of the words ("Official Charts Company", "Domain Media",
// "Verified Market Research") pass.
func DisplayName(field, v string, maxRunes int) (string, error) {
	v, err := Name(field, v, maxRunes)
	if err != nil || v == "" {
		return v, err
	}
	if reason := impersonation(v); reason != "" {
		return "", nameErr(field, reason)
	}
	return v, nil
}

// labelWords are the words the label uses to state what the service knows.
var labelWords = map[string]bool{
	"verified": true, "unverified": true, "verification": true, "official": true, "officially": true,
	"domain": true, "key": true, "organisation": true, "organization": true, "signer": true, "provenant": true,
	"authentic": true, "certified": true,
}

// labelPhrases are phrases of the label, or read as one, in skeleton form.
var labelPhrases = []string{
	"verified domain", "domain verified", "verified organisation", "verified organization",
	"verified by", "verified account", "verified publisher", "verified signer", "verified source",
	"official account", "officially verified", "verified official", "official verified",
	"another organisation uses this name", "another organization uses this name",
}

func impersonation(v string) string {
	if hasFingerprint(v) {
		return ReasonNameFingerprint
	}
	// Words of the skeleton, bracketed segments kept apart: the skeleton
	// drops punctuation, so brackets are found on the NFC name, each
	// segment then read through its own skeleton.
	sk := " " + wordSkeleton(v) + " "
	if strings.Contains(sk, " unverified ") || strings.Contains(sk, " unverifed ") {
		return ReasonNameLabel
	}
	for _, p := range labelPhrases {
		if strings.Contains(sk, " "+p+" ") {
			return ReasonNameLabel
		}
	}
	words := strings.Fields(sk)
	if n := len(words); n > 1 && (words[n-1] == "verified" || words[n-1] == "official") {
		return ReasonNameLabel
	}
	for _, seg := range bracketed(v) {
		for _, w := range strings.Fields(wordSkeleton(seg)) {
			if labelWords[w] {
				return ReasonNameLabel
			}
		}
	}
	parts := strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(",:;|/\u2013\u2014-", r) })
	for _, p := range parts[min(1, len(parts)):] {
		// Only label words and domain names ("reuters.com") after the
		// separator: a qualifier, not part of the name.
		ws := strings.Fields(p)
		only := len(ws) > 0
		for _, w := range ws {
			if strings.Contains(strings.Trim(w, ".()[]"), ".") {
				continue
			}
			for _, k := range strings.Fields(wordSkeleton(w)) {
				if !labelWords[k] {
					only = false
				}
			}
		}
		if only {
			return ReasonNameLabel
		}
	}
	return ""
}

// wordSkeleton is the skeleton of v with punctuation and symbols read as
// word breaks ("verified-domain" is two words), for finding label words.
func wordSkeleton(v string) string {
	return skeleton(strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.P, unicode.S) {
			return ' '
		}
		return r
	}, v))
}

// bracketed returns the text inside every (…), […], {…} and <…> of v (an
// unclosed bracket runs to the end).
func bracketed(v string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range v {
		switch r {
		case '(', '[', '{', '<', '（', '［':
			if depth == 0 {
				start = i + len(string(r))
			}
			depth++
		case ')', ']', '}', '>', '）', '］':
			if depth > 0 {
				depth--
				if depth == 0 {
					out = append(out, v[start:i])
				}
			}
		}
	}
	if depth > 0 {
		out = append(out, v[start:])
	}
	return out
}

// hasFingerprint reports whether v holds a run of at least
// minFingerprintRun hex digits with both digits and letters, reading
// separated groups that each contain a digit as one run.
func hasFingerprint(v string) bool {
	// Full-width and other compatibility digits count as their ASCII form.
	v = strings.ToLower(foldWidth(v))
	tokens := strings.FieldsFunc(v, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	run, digits, letters := 0, false, false
	flush := func() bool {
		hit := run >= minFingerprintRun && digits && letters
		run, digits, letters = 0, false, false
		return hit
	}
	for _, tok := range tokens {
		hexTok, d, l := true, false, false
		for _, r := range tok {
			switch {
			case r >= '0' && r <= '9':
				d = true
			case r >= 'a' && r <= 'f':
				l = true
			default:
				hexTok = false
			}
		}
		if !hexTok {
			if flush() {
				return true
			}
			continue
		}
		if len(tok) >= minFingerprintRun && d && l {
			return true
		}
		// Groups join a run only when they carry a digit: "5832 517e" is
		// one number, "cafe bad" two words.
		if !d {
			if flush() {
				return true
			}
			continue
		}
		run += len(tok)
		digits, letters = true, letters || l
	}
	return flush()
}

// foldWidth maps full-width ASCII forms to ASCII.
func foldWidth(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 0xFF01 && r <= 0xFF5E {
			return r - 0xFF01 + '!'
		}
		return r
	}, s)
}
