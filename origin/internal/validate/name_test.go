package validate

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestName(t *testing.T) {
	tests := []struct {
		name, in, want string
		reason         string // "" means accepted
		unprocessable  bool
	}{
		{name: "plain latin", in: "Reuters", want: "Reuters"},
		{name: "trimmed", in: "  Example News  ", want: "Example News"},
		{name: "trailing newline refused, not trimmed", in: "Reuters\n", reason: ReasonNameControl},
		{name: "NFC composed", in: "Cafe\u0301 Presse", want: "Café Presse"},
		{name: "accents", in: "Agence France-Presse — Bureau de Zürich", want: "Agence France-Presse — Bureau de Zürich"},
		{name: "cyrillic only", in: "Коммерсантъ", want: "Коммерсантъ"},
		{name: "greek only", in: "Καθημερινή", want: "Καθημερινή"},
		{name: "japanese with latin", in: "NHK 日本放送協会 ニュース", want: "NHK 日本放送協会 ニュース"},
		{name: "korean with latin", in: "KBS 한국방송공사", want: "KBS 한국방송공사"},
		{name: "arabic", in: "الجزيرة", want: "الجزيرة"},
		{name: "digits and punctuation", in: "Studio 54 (Paris) & Co.", want: "Studio 54 (Paris) & Co."},
		{name: "trade marks allowed", in: "Acme® Cameras™ ©2026", want: "Acme® Cameras™ ©2026"},
		{name: "empty", in: "   ", want: ""},

		{name: "newline", in: "Reuters\nVerified by Provenant", reason: ReasonNameControl},
		{name: "tab", in: "Reuters\tNews", reason: ReasonNameControl},
		{name: "NUL", in: "Reu\x00ters", reason: ReasonNameControl},
		{name: "C1 control", in: "Reuters\u0085", reason: ReasonNameControl},
		{name: "line separator", in: "Reuters\u2028Verified", reason: ReasonNameControl},
		{name: "right-to-left override", in: "Reuters\u202Esretuer", reason: ReasonNameBidi, unprocessable: true},
		{name: "left-to-right mark", in: "Reuters\u200E", reason: ReasonNameBidi, unprocessable: true},
		{name: "isolate", in: "\u2066Reuters\u2069", reason: ReasonNameBidi, unprocessable: true},
		{name: "arabic letter mark", in: "الجزيرة\u061C", reason: ReasonNameBidi, unprocessable: true},
		{name: "zero width space", in: "Reu\u200Bters", reason: ReasonNameInvisible, unprocessable: true},
		{name: "zero width joiner", in: "Reu\u200Dters", reason: ReasonNameInvisible, unprocessable: true},
		{name: "soft hyphen", in: "Reu\u00ADters", reason: ReasonNameInvisible, unprocessable: true},
		{name: "byte order mark", in: "\uFEFFReuters", reason: ReasonNameInvisible, unprocessable: true},
		{name: "variation selector", in: "Reuters\uFE0F", reason: ReasonNameInvisible, unprocessable: true},
		{name: "no-break space", in: "Reuters\u00A0News", reason: ReasonNameSpace, unprocessable: true},
		{name: "ideographic space", in: "Reuters\u3000News", reason: ReasonNameSpace, unprocessable: true},
		{name: "private use", in: "Reuters\uE000", reason: ReasonNameUnknown, unprocessable: true},
		{name: "unassigned", in: "Reuters\u0378", reason: ReasonNameUnknown, unprocessable: true},
		{name: "heavy check mark", in: "staff camera ✔ verified", reason: ReasonNameSymbol, unprocessable: true},
		{name: "check mark", in: "Reuters ✓", reason: ReasonNameSymbol, unprocessable: true},
		{name: "emoji", in: "Reuters 📷", reason: ReasonNameSymbol, unprocessable: true},
		{name: "keycap", in: "Camera 1\u20E3", reason: ReasonNameSymbol, unprocessable: true},
		{name: "zalgo", in: "Reu\u0301\u0302\u0303\u0304\u0305ters", reason: ReasonNameMarks, unprocessable: true},
		{name: "cyrillic e in latin", in: "R\u0435uters", reason: ReasonNameScripts, unprocessable: true},
		{name: "greek omicron in latin", in: "Rep\u03BFrter", reason: ReasonNameScripts, unprocessable: true},
		{name: "latin and arabic", in: "Al Jazeera الجزيرة", reason: ReasonNameScripts, unprocessable: true},
		{name: "cyrillic and greek", in: "Кα", reason: ReasonNameScripts, unprocessable: true},
		{name: "invalid utf-8", in: "Reu\xffters", reason: ReasonNameUTF8},
		{name: "too long", in: strings.Repeat("a", 11), reason: "must be at most 10 characters"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			max := 200
			if tc.name == "too long" {
				max = 10
			}
			got, err := Name("org_name", tc.in, max)
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("Name(%q) error %v, want accepted", tc.in, err)
				}
				if got != tc.want {
					t.Errorf("Name(%q) = %q, want %q", tc.in, got, tc.want)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Name(%q) = %q, %v; want a *FieldError %q", tc.in, got, err, tc.reason)
			}
			if fe.Field != "org_name" || fe.Reason != tc.reason {
				t.Errorf("Name(%q) error = %s: %q, want org_name: %q", tc.in, fe.Field, fe.Reason, tc.reason)
			}
			if fe.Unprocessable != tc.unprocessable {
				t.Errorf("Name(%q) Unprocessable = %v, want %v", tc.in, fe.Unprocessable, tc.unprocessable)
			}
		})
	}
}

func TestFoldName(t *testing.T) {
	tests := []struct {
		name, a, b string
		same       bool
	}{
		{"case", "Reuters", "REUTERS", true},
		{"full width", "Reuters", "Ｒｅｕｔｅｒｓ", true},
		{"spaces collapse", "Example  News", "example news", true},
		{"cyrillic whole word look-alike", "ABC", "АВС", true},
		{"greek look-alike", "KOTA", "ΚΟΤΑ", true},
		{"different names", "Reuters", "Reuter", false},
		{"accent folds: a reader does not tell them apart", "Cafe", "Café", true},
		{"diaeresis", "Reuters", "Rëuters", true},
		{"acute", "Reuters", "Réuters", true},
		{"combining acute", "Reuters", "Re\u0301uters", true},
		{"trade mark", "Reuters", "Reuters™", true},
		{"registered and copyright", "Reuters", "©Reuters®", true},
		{"punctuation", "Reuters", "Reuters.", true},
		{"stroke letter", "Reuters", "Reułers", false},
		{"l with stroke", "Reuters Global", "Reuters Głobal", true},
		{"digit one for l", "Global News", "G1obal News", true},
		{"digit zero for o", "Global News", "Gl0bal News", true},
		{"rn for m", "Momentum", "Mornentum", true},
		{"vv for w", "Wire", "VVire", true},
		{"full width with accent", "Reuters", "Ｒéｕｔｅｒｓ", true},
		{"distinct agencies", "AP", "AFP", false},
		{"distinct papers", "Die Zeit", "Die Welt", false},
		{"longer name", "Le Monde", "Le Monde diplomatique", false},
		{"distinct words", "Reuters", "Routers", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fa, fb := FoldName(tc.a), FoldName(tc.b)
			if (fa == fb) != tc.same {
				t.Errorf("FoldName(%q) = %q, FoldName(%q) = %q; same = %v, want %v", tc.a, fa, tc.b, fb, fa == fb, tc.same)
			}
		})
	}
}

func TestSafeDisplay(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"clean unchanged", "Reuters ✔", "Reuters ✔"},
		{"newline replaced", "Reuters\nVerified", "Reuters\uFFFDVerified"},
		{"override replaced", "Reuters\u202Esretuer", "Reuters\uFFFDsretuer"},
		{"zero width replaced", "Reu\u200Bters", "Reu\uFFFDters"},
		{"invalid utf-8 replaced", "Reu\xffters", "Reu\uFFFDters"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := SafeDisplay(tc.in); got != tc.want {
				t.Errorf("SafeDisplay(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// FuzzName checks the validator's guarantees on any input: it never
// panics, an accepted name is NFC, trimmed, valid UTF-8, within the bound,
// accepted again unchanged (idempotent), and free of what the rules
// refuse; and SafeDisplay of anything contains no control or bidi
// character.
func FuzzName(f *testing.F) {
	for _, s := range []string{"Reuters", "R\u0435uters", "Reuters\u202E", "Reuters\nVerified by Provenant",
		"staff camera ✔ verified", "NHK 日本放送協会", "Cafe\u0301", " \u00A0", "\xff", "Acme®"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		shown := SafeDisplay(in)
		if !utf8.ValidString(shown) || strings.ContainsFunc(shown, func(r rune) bool { return IsControl(r) || IsBidiControl(r) }) {
			t.Fatalf("SafeDisplay(%q) = %q keeps an unsafe character", in, shown)
		}
		got, err := Name("name", in, 50)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "name" || fe.Reason == "" {
				t.Fatalf("Name(%q) error %v is not a FieldError for name", in, err)
			}
			return
		}
		if got == "" {
			if strings.TrimSpace(in) != "" {
				t.Fatalf("Name(%q) accepted a non-blank value as empty", in)
			}
			return
		}
		if !utf8.ValidString(got) || strings.TrimSpace(got) != got || utf8.RuneCountInString(got) > 50 {
			t.Fatalf("Name(%q) = %q: not valid, trimmed and bounded", in, got)
		}
		if again, err := Name("name", got, 50); err != nil || again != got {
			t.Fatalf("Name(Name(%q)) = %q, %v; want %q unchanged", in, again, err, got)
		}
		if SafeDisplay(got) != got {
			t.Fatalf("accepted name %q changes under SafeDisplay", got)
		}
	})
}
