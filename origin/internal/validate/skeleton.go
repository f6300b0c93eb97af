package validate

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// skeleton is the comparison key FoldName returns, in the spirit of the
// skeleton of Unicode Technical Standard #39 (section 4, "Confusable
// Detection") for a reader who does not look closely: case folded; NFKD
// (compatibility forms such as full-width letters become their plain
// letter, and accented letters come apart); combining marks dropped
// ("Rëuters", "Réuters" → "reuters"); symbols and punctuation dropped
// ("Reuters™", "Reuters®", "Reuters!" → "reuters", and "A.B.C." → "abc");
// letters with a stroke or a bar NFKD leaves whole mapped to their base
// letter (ø, ł, đ, ı …); Cyrillic and Greek letters drawn like Latin ones
// mapped to those; the digit and letter-pair look-alikes 0 → o, 1 → l,
// "rn" → "m", "vv" → "w"; runs of spaces collapsed to one.
//
// It is smaller than the full UTS #39 confusables data on purpose: the
// names it compares passed Name, so mixed scripts are gone and what is
// left is case, width, accents, trade marks and whole-word look-alikes.
func skeleton(s string) string {
	// Symbols go first: compatibility decomposition would spell ™ "TM".
	s = strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.S, unicode.P, unicode.Cf) {
			return -1
		}
		return r
	}, s)
	s = norm.NFKD.String(cases.Fold().String(norm.NFKC.String(s)))
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc, unicode.S, unicode.P, unicode.Cf):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if l, ok := latinLookalike[r]; ok {
			r = l
		}
		b.WriteRune(r)
	}
	out := b.String()
	// The letter pairs last, on the mapped text: "rn" is read as "m".
	return strings.NewReplacer("rn", "m", "vv", "w").Replace(out)
}

// latinLookalike maps case-folded letters and digits to the Latin letter
// they are drawn like in common fonts: Cyrillic and Greek look-alikes,
// Latin letters with a stroke or bar that NFKD does not decompose, and
// the digits 0 and 1.
var latinLookalike = map[rune]rune{
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'һ': 'h', 'і': 'i', 'ї': 'i', 'ј': 'j', 'к': 'k', 'м': 'm', 'н': 'h',
	'о': 'o', 'р': 'p', 'с': 'c', 'ѕ': 's', 'т': 't', 'у': 'y', 'х': 'x', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'ӏ': 'l',
	'α': 'a', 'β': 'b', 'ε': 'e', 'η': 'n', 'ι': 'i', 'κ': 'k', 'μ': 'u', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't',
	'υ': 'u', 'χ': 'x', 'ω': 'w', 'ϲ': 'c',
	'ø': 'o', 'ł': 'l', 'đ': 'd', 'ħ': 'h', 'ŧ': 't', 'ƀ': 'b', 'ɨ': 'i', 'ı': 'i', 'ȷ': 'j', 'ƶ': 'z', 'ǥ': 'g',
	'0': 'o', '1': 'l',
}
