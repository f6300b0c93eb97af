// Package rfc3339 reads and writes the timestamps of the JSON API without
// Go's generic layout code: one time.Parse or Time.Format call links the
// whole layout interpreter into the verifier WebAssembly module, whose
// size has a budget (docs/widget.md, "Size"). Parse accepts exactly what
// time.Parse(time.RFC3339Nano, s) accepts, leniencies included, and
// Millis and MinuteUTC write exactly what time.Format writes, so swapping
// one for the other changes no verdict; differential fuzz tests hold them
// together.
package rfc3339

import (
	"errors"
	"time"
)

// ErrSyntax is returned for every string time.Parse(time.RFC3339Nano, …)
// rejects. Callers word their own message; none shows the parser's.
var ErrSyntax = errors.New("rfc3339: not an RFC 3339 time")

// Parse returns the instant s names. It agrees with
// time.Parse(time.RFC3339Nano, s) on which strings parse, on the instant
// (Equal) and on the zone offset and name (Zone): "Z" gives UTC, an offset
// gives time.Local when Local has that offset at that instant, else a
// nameless fixed zone. Like time.Parse it takes a one-digit hour, a comma
// before the fraction, any number of fraction digits (truncated to
// nanoseconds) and zone offsets up to 24:60, and it rejects hour 24,
// second 60, lowercase "t" or "z" and anything after the zone.
func Parse(s string) (time.Time, error) {
	// 2006-01-02T15:04:05 with an hour of one or two digits.
	if len(s) < len("2006-01-02T1:04:05Z") || !digits(s[:4]) || s[4] != '-' || !digits(s[5:7]) || s[7] != '-' || !digits(s[8:10]) || s[10] != 'T' {
		return time.Time{}, ErrSyntax
	}
	year, month, day := num(s[:4]), num(s[5:7]), num(s[8:10])
	rest := s[11:]
	var hour int
	switch {
	case isDigit(rest, 0) && isDigit(rest, 1):
		hour, rest = num(rest[:2]), rest[2:]
	case isDigit(rest, 0):
		hour, rest = num(rest[:1]), rest[1:]
	default:
		return time.Time{}, ErrSyntax
	}
	if len(rest) < len(":04:05") || rest[0] != ':' || !digits(rest[1:3]) || rest[3] != ':' || !digits(rest[4:6]) {
		return time.Time{}, ErrSyntax
	}
	min, sec := num(rest[1:3]), num(rest[4:6])
	rest = rest[6:]
	if month < 1 || month > 12 || hour > 23 || min > 59 || sec > 59 || day < 1 || day > daysIn(month, year) {
		return time.Time{}, ErrSyntax
	}
	nsec := 0
	if len(rest) >= 2 && (rest[0] == '.' || rest[0] == ',') && isDigit(rest, 1) {
		n := 1
		for ; n < len(rest) && isDigit(rest, n); n++ {
			if n <= 9 {
				nsec = nsec*10 + int(rest[n]-'0')
			}
		}
		for i := n; i <= 9; i++ {
			nsec *= 10
		}
		rest = rest[n:]
	}
	if rest == "Z" {
		return time.Date(year, time.Month(month), day, hour, min, sec, nsec, time.UTC), nil
	}
	if len(rest) != len("-07:00") || (rest[0] != '+' && rest[0] != '-') || !digits(rest[1:3]) || rest[3] != ':' || !digits(rest[4:6]) {
		return time.Time{}, ErrSyntax
	}
	// time.Parse lets the offset reach 24 hours and 60 minutes.
	oh, om := num(rest[1:3]), num(rest[4:6])
	if oh > 24 || om > 60 {
		return time.Time{}, ErrSyntax
	}
	offset := (oh*60 + om) * 60
	if rest[0] == '-' {
		offset = -offset
	}
	t := time.Date(year, time.Month(month), day, hour, min, sec, nsec, time.UTC).Add(-time.Duration(offset) * time.Second)
	if _, local := t.In(time.Local).Zone(); local == offset {
		return t.In(time.Local), nil
	}
	return t.In(time.FixedZone("", offset)), nil
}

// Millis writes t as the JSON API does, in t's own zone to the
// millisecond, exactly as t.Format("2006-01-02T15:04:05.000Z07:00"): the
// fraction truncated, "Z" for a zero offset, the seconds of an offset
// dropped.
func Millis(t time.Time) string {
	b := appendMinute(make([]byte, 0, len("2006-01-02T15:04:05.000+07:00")+2), t, 'T')
	b = append(b, ':')
	b = pad(b, t.Second(), 2)
	b = append(b, '.')
	b = pad(b, t.Nanosecond()/1e6, 3)
	_, offset := t.Zone()
	if offset == 0 {
		return string(append(b, 'Z'))
	}
	zone := offset / 60 // whole minutes, toward zero, as time.Format
	if zone < 0 {
		b = append(b, '-')
		zone = -zone
	} else {
		b = append(b, '+')
	}
	b = pad(b, zone/60, 2)
	b = append(b, ':')
	return string(pad(b, zone%60, 2))
}

// MinuteUTC writes t in UTC to the minute for people,
// "2006-01-02 15:04 UTC", exactly as t.UTC().Format("2006-01-02 15:04 UTC")
// does (a year outside 0–9999 keeps its sign and all its digits).
func MinuteUTC(t time.Time) string {
	b := appendMinute(make([]byte, 0, len("2006-01-02 15:04 UTC")+2), t.UTC(), ' ')
	return string(append(b, " UTC"...))
}

// appendMinute writes t's date and time to the minute in t's own zone,
// as time.Format's "2006-01-02" + sep + "15:04".
func appendMinute(b []byte, t time.Time, sep byte) []byte {
	year, month, day := t.Date()
	hour, min, _ := t.Clock()
	b = appendYear(b, year)
	b = append(b, '-')
	b = pad(b, int(month), 2)
	b = append(b, '-')
	b = pad(b, day, 2)
	b = append(b, sep)
	b = pad(b, hour, 2)
	b = append(b, ':')
	return pad(b, min, 2)
}

// appendYear writes a year as time.Format's "2006" does: four digits at
// least, a minus sign before a negative year.
func appendYear(b []byte, year int) []byte {
	if year < 0 {
		b = append(b, '-')
		year = -year
	}
	return pad(b, year, 4)
}

// pad appends the decimal digits of a non-negative x, zero-padded to width.
func pad(b []byte, x, width int) []byte {
	var d [20]byte
	i := len(d)
	for x >= 10 || len(d)-i < width-1 {
		i--
		d[i] = byte('0' + x%10)
		x /= 10
	}
	i--
	d[i] = byte('0' + x)
	return append(b, d[i:]...)
}

func isDigit(s string, i int) bool { return i < len(s) && '0' <= s[i] && s[i] <= '9' }

func digits(s string) bool {
	for i := range len(s) {
		if !isDigit(s, i) {
			return false
		}
	}
	return true
}

// num is the value of s, ASCII digits only (checked by the caller).
func num(s string) int {
	x := 0
	for i := range len(s) {
		x = x*10 + int(s[i]-'0')
	}
	return x
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
