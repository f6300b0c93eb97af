package rfc3339

import (
	"testing"
	"time"
)

// same reports whether Parse agrees with time.Parse(time.RFC3339Nano, s):
// both fail, or both give the same instant, zone name and offset.
func same(t *testing.T, s string) {
	t.Helper()
	want, werr := time.Parse(time.RFC3339Nano, s)
	got, gerr := Parse(s)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("Parse(%q): error %v, time.Parse: error %v", s, gerr, werr)
	}
	if werr != nil {
		return
	}
	wn, wo := want.Zone()
	gn, gof := got.Zone()
	if !got.Equal(want) || wn != gn || wo != gof || got.Location().String() != want.Location().String() {
		t.Fatalf("Parse(%q) = %v (%s %d), time.Parse = %v (%s %d)", s, got, gn, gof, want, wn, wo)
	}
	if g, w := MinuteUTC(got), want.UTC().Format("2006-01-02 15:04 UTC"); g != w {
		t.Fatalf("MinuteUTC(%q) = %q, Format gives %q", s, g, w)
	}
	for _, tm := range []time.Time{got, got.UTC()} {
		if g, w := Millis(tm), tm.Format(apiLayout); g != w {
			t.Fatalf("Millis(%v) = %q, Format gives %q", tm, g, w)
		}
	}
}

// apiLayout is record.TimeFormat, which Millis stands in for.
const apiLayout = "2006-01-02T15:04:05.000Z07:00"

func go_(_ string, o int) int { return o }

// cases are the edges where a hand-written RFC 3339 parser and Go's
// layout parser could part: each must parse, or fail, alike.
var cases = []string{
	"2026-11-27T10:04:05Z",
	"2026-11-27T10:04:05.123Z",
	"2026-11-27T10:04:05.123+02:00",
	"2026-11-27T10:04:05-07:30",
	// Leap days.
	"2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "1900-02-29T00:00:00Z",
	"2026-04-31T00:00:00Z", "2026-12-31T23:59:59Z", "2026-12-32T00:00:00Z", "2026-00-10T00:00:00Z", "2026-13-10T00:00:00Z",
	"2026-01-00T00:00:00Z",
	// 24:00 and leap seconds.
	"2026-11-27T24:00:00Z", "2026-11-27T23:60:00Z", "2026-11-27T23:59:60Z", "2016-12-31T23:59:60Z",
	// Fractions of 1 to 12 digits, both separators, empty.
	"2026-11-27T10:04:05.1Z", "2026-11-27T10:04:05.12Z", "2026-11-27T10:04:05.123456Z",
	"2026-11-27T10:04:05.123456789Z", "2026-11-27T10:04:05.1234567891Z", "2026-11-27T10:04:05.999999999999Z",
	"2026-11-27T10:04:05.000000000Z", "2026-11-27T10:04:05,5Z", "2026-11-27T10:04:05,123456789+01:00",
	"2026-11-27T10:04:05.Z", "2026-11-27T10:04:05,Z", "2026-11-27T10:04:05..1Z", "2026-11-27T10:04:05.1.2Z",
	// Case.
	"2026-11-27t10:04:05Z", "2026-11-27T10:04:05z", "2026-11-27 10:04:05Z",
	// Offsets, in and out of range.
	"2026-11-27T10:04:05+00:00", "2026-11-27T10:04:05-00:00", "2026-11-27T10:04:05+23:59",
	"2026-11-27T10:04:05+24:00", "2026-11-27T10:04:05+24:60", "2026-11-27T10:04:05+25:00",
	"2026-11-27T10:04:05+00:61", "2026-11-27T10:04:05-24:60", "2026-11-27T10:04:05+0100",
	"2026-11-27T10:04:05+01", "2026-11-27T10:04:05+1:00", "2026-11-27T10:04:05 01:00",
	"2026-11-27T10:04:05+01:00:00", "2026-11-27T10:04:05+01:0a", "2026-11-27T10:04:05Z+01:00",
	// Missing parts.
	"", "2026", "2026-11-27", "2026-11-27T", "2026-11-27T10:04", "2026-11-27T10:04Z", "2026-11-27T10:04:05",
	"2026-11-27T10:04:5Z", "2026-11-27T10:4:05Z", "2026-11-7T10:04:05Z", "2026-1-27T10:04:05Z",
	"26-11-27T10:04:05Z", "2026-11-27T1:04:05Z", "2026-11-27T:04:05Z", "2026-11-27T100:04:05Z",
	// Trailing garbage.
	"2026-11-27T10:04:05Z ", "2026-11-27T10:04:05ZZ", "2026-11-27T10:04:05+01:00x", " 2026-11-27T10:04:05Z",
	"2026-11-27T10:04:05.5Zjunk",
	// Years at the ends, whose UTC instant leaves 0000–9999.
	"0000-01-01T00:00:00Z", "0000-01-01T00:00:00+01:00", "9999-12-31T23:59:59.999999999Z",
	"9999-12-31T23:59:59-01:00", "0000-02-29T12:00:00Z", "+999-01-01T00:00:00Z", "-001-01-01T00:00:00Z",
	"10000-01-01T00:00:00Z",
	// Non-ASCII digits and signs.
	"２０２６-11-27T10:04:05Z", "2026-11-27T10:04:05.١٢Z", "2026-11-27T10:04:05−01:00", "2026-11-27T10:04:05+０1:00",
}

func TestParseMatchesTimeParse(t *testing.T) {
	for _, s := range cases {
		t.Run(s, func(t *testing.T) { same(t, s) })
	}
}

// TestParseMatchesTimeParseInAZone repeats the table with a Local zone
// that has an offset, where time.Parse returns Local for a matching offset.
func TestParseMatchesTimeParseInAZone(t *testing.T) {
	saved := time.Local
	time.Local = time.FixedZone("CET", 3600)
	t.Cleanup(func() { time.Local = saved })
	for _, s := range append(cases, "2026-11-27T10:04:05+01:00") {
		same(t, s)
	}
	got, err := Parse("2026-11-27T10:04:05+01:00")
	if err != nil || got.Location() != time.Local {
		t.Fatalf("Parse with the Local offset = %v, %v; want the Local zone", got, err)
	}
}

func TestMinuteUTC(t *testing.T) {
	for _, tm := range []time.Time{
		time.Date(2026, 11, 27, 10, 4, 59, 999, time.FixedZone("", 3600)),
		time.Date(-1, 12, 31, 23, 0, 0, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-12345, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(7, 3, 4, 5, 6, 0, 0, time.UTC),
		{},
	} {
		if got, want := MinuteUTC(tm), tm.UTC().Format("2006-01-02 15:04 UTC"); got != want {
			t.Errorf("MinuteUTC(%v) = %q, want %q", tm, got, want)
		}
	}
}

// TestMillis holds Millis to time.Format where zones have odd offsets:
// seconds in the offset, a negative offset under a minute, offsets of more
// than a day, and years outside 0000–9999.
func TestMillis(t *testing.T) {
	for _, tm := range []time.Time{
		time.Date(2026, 11, 27, 10, 4, 5, 999_999_999, time.UTC),
		time.Date(2026, 11, 27, 10, 4, 5, 1_000_000, time.FixedZone("", -(5*3600+30*60))),
		time.Date(2026, 11, 27, 10, 4, 5, 0, time.FixedZone("LMT", 3600+61)),
		time.Date(2026, 11, 27, 10, 4, 5, 0, time.FixedZone("", -30)),
		time.Date(2026, 11, 27, 10, 4, 5, 0, time.FixedZone("", 30)),
		time.Date(2026, 11, 27, 10, 4, 5, 0, time.FixedZone("", 100*3600)),
		time.Date(-1, 12, 31, 23, 0, 0, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.FixedZone("", -3600)),
		{},
	} {
		if got, want := Millis(tm), tm.Format(apiLayout); got != want {
			t.Errorf("Millis(%v) = %q, want %q", tm, got, want)
		}
	}
}

// FuzzMillis compares Millis with time.Format over instants and fixed
// zones of any offset.
func FuzzMillis(f *testing.F) {
	f.Add(int64(1_795_000_000), int64(123_456_789), 0)
	f.Add(int64(-62_167_219_200), int64(0), 3600)
	f.Add(int64(253_402_300_799), int64(999_999_999), -3600)
	f.Add(int64(0), int64(5), -30)
	f.Add(int64(1_000), int64(1), 86_400*5+61)
	f.Fuzz(func(t *testing.T, sec, nsec int64, offset int) {
		tm := time.Unix(sec, nsec).In(time.FixedZone("", offset))
		if got, want := Millis(tm), tm.Format(apiLayout); got != want {
			t.Fatalf("Millis(%v) = %q, want %q", tm, got, want)
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, s := range cases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { same(t, s) })
}
