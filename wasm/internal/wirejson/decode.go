package wirejson

import (
	"encoding/base64"
	"errors"
	"reflect"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// ErrTrailingData is strict decoding's answer to input that goes on
// after its JSON value.
var ErrTrailingData = errors.New("trailing data after the JSON value")

// Unmarshal decodes data, one JSON value with nothing but white space
// around it, into v (a non-nil pointer) and fails exactly when
// encoding/json.Unmarshal would: bad syntax, a value of the wrong type
// or out of range, invalid base64. Members that match no field are
// skipped; keys match field names exactly first, then case-insensitively.
func Unmarshal(data []byte, v any) error {
	d := decoder{data: data}
	if err := d.top(v); err != nil {
		return err
	}
	if d.skipSpace(); d.pos < len(d.data) {
		return d.syntax("after top-level value")
	}
	return nil
}

// UnmarshalStrict decodes the first JSON value of data into v as an
// encoding/json.Decoder with DisallowUnknownFields does, then fails as
// well when the decoder's More would report another value: a member
// that matches no field is an error, and so is trailing data other than
// white space or a closing bracket.
func UnmarshalStrict(data []byte, v any) error {
	d := decoder{data: data, strict: true}
	if err := d.top(v); err != nil {
		return err
	}
	if d.skipSpace(); d.pos < len(d.data) && d.data[d.pos] != ']' && d.data[d.pos] != '}' {
		return ErrTrailingData
	}
	return nil
}

type decoder struct {
	data   []byte
	pos    int
	depth  int
	strict bool
}

func (d *decoder) top(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errors.New("json: Unmarshal(non-pointer or nil)")
	}
	if d.skipSpace(); d.pos >= len(d.data) {
		return errors.New("unexpected end of JSON input")
	}
	return d.value(rv.Elem())
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) syntax(context string) error {
	if d.pos >= len(d.data) {
		return errors.New("unexpected end of JSON input")
	}
	return errors.New("invalid character " + strconv.QuoteRune(rune(d.data[d.pos])) + " " + context)
}

func typeError(what string, t reflect.Type) error {
	return errors.New("json: cannot unmarshal " + what + " into Go value of type " + t.String())
}

// value decodes the value at d.pos into v (settable, or a pointer),
// d.pos being at its first byte. An invalid v (the zero Value) checks
// the value and discards it: a member that matches no field.
func (d *decoder) value(v reflect.Value) error {
	if d.pos >= len(d.data) {
		return d.syntax("")
	}
	c := d.data[d.pos]
	if c == 'n' {
		if err := d.literal("null"); err != nil {
			return err
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			v.SetZero()
		}
		return nil
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			if err := setNew(v); err != nil {
				return err
			}
		}
		v = v.Elem()
	}
	switch c {
	case '{':
		return d.object(v)
	case '[':
		return d.array(v)
	case '"':
		s, err := d.str()
		if err != nil || !v.IsValid() {
			return err
		}
		switch {
		case v.Kind() == reflect.String:
			v.SetString(s)
		case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return err
			}
			v.SetBytes(b)
		default:
			return typeError("string", v.Type())
		}
		return nil
	case 't', 'f':
		lit := "true"
		if c == 'f' {
			lit = "false"
		}
		if err := d.literal(lit); err != nil || !v.IsValid() {
			return err
		}
		if v.Kind() != reflect.Bool {
			return typeError("bool", v.Type())
		}
		v.SetBool(c == 't')
		return nil
	}
	if !v.IsValid() {
		_, err := d.numberText()
		return err
	}
	return d.number(v)
}

func (d *decoder) literal(lit string) error {
	for i := range len(lit) {
		if d.pos >= len(d.data) || d.data[d.pos] != lit[i] {
			return d.syntax("in literal " + lit)
		}
		d.pos++
	}
	return nil
}

func (d *decoder) enter() error {
	if d.depth++; d.depth > maxDepth {
		return errors.New("exceeded max depth")
	}
	return nil
}

func (d *decoder) object(v reflect.Value) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer func() { d.depth-- }()
	var fields []field
	switch {
	case !v.IsValid():
	case v.Kind() != reflect.Struct:
		return typeError("object", v.Type())
	default:
		fields = fieldsOf(v.Type())
	}
	d.pos++ // {
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return nil
	}
	for {
		if d.skipSpace(); d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return d.syntax("looking for beginning of object key string")
		}
		key, err := d.str()
		if err != nil {
			return err
		}
		if d.skipSpace(); d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return d.syntax("after object key")
		}
		d.pos++
		d.skipSpace()
		f := match(fields, key)
		switch {
		case f != nil:
			fv, err := fieldByIndex(v, f.index)
			if err != nil {
				return err
			}
			if err := d.value(fv); err != nil {
				return err
			}
		case d.strict:
			return errors.New("json: unknown field " + strconv.Quote(key))
		default:
			if err := d.value(reflect.Value{}); err != nil {
				return err
			}
		}
		d.skipSpace()
		if d.pos >= len(d.data) {
			return d.syntax("")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return d.syntax("after object key:value pair")
		}
	}
}

// fieldByIndex is v's field by index path, allocating embedded pointers.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, error) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if err := setNew(v); err != nil {
					return reflect.Value{}, err
				}
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, nil
}

// match is the field a key names: its exact name, else the first whose
// name folds to the key's (encoding/json's rule).
func match(fields []field, key string) *field {
	for i := range fields {
		if fields[i].name == key {
			return &fields[i]
		}
	}
	k := fold(key)
	for i := range fields {
		if fold(fields[i].name) == k {
			return &fields[i]
		}
	}
	return nil
}

// fold is encoding/json's folded form of a name (ASCII upper-cased, any
// other letter mapped to the upper case of its lower case) as far as it
// decides a match with an ASCII name, which every wire field's is: of
// the other runes, only the four whose fold is ASCII are mapped, and the
// rest kept, so that they match no ASCII name, as under encoding/json.
// This keeps unicode's case tables out of the module.
func fold(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\u017f': // ſ, long s
			r = 'S'
		case '\u212a': // Kelvin sign
			r = 'K'
		case '\u0130', '\u0131': // dotted capital I, dotless small i
			r = 'I'
		}
		out = utf8.AppendRune(out, r)
		i += n
	}
	return string(out)
}

func (d *decoder) array(v reflect.Value) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer func() { d.depth-- }()
	discard := !v.IsValid()
	if !discard && v.Kind() != reflect.Slice {
		return typeError("array", v.Type())
	}
	d.pos++ // [
	// Elements decode into the slice's storage as encoding/json's do, so
	// that a member given twice merges the same way.
	i := 0
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
	} else {
		for {
			d.skipSpace()
			elem := v
			if !discard {
				if i >= v.Cap() {
					v.Grow(1)
				}
				if i >= v.Len() {
					v.SetLen(i + 1)
				}
				elem = v.Index(i)
			}
			if err := d.value(elem); err != nil {
				return err
			}
			i++
			d.skipSpace()
			if d.pos >= len(d.data) {
				return d.syntax("")
			}
			if d.data[d.pos] == ']' {
				d.pos++
				break
			}
			if d.data[d.pos] != ',' {
				return d.syntax("after array element")
			}
			d.pos++
		}
	}
	if discard {
		return nil
	}
	if i < v.Len() {
		v.SetLen(i)
	}
	if i == 0 && v.IsNil() {
		// An empty array is an empty slice, not nil, as under
		// encoding/json: growing a nil slice allocates its array.
		v.Grow(1)
	}
	return nil
}

// numberText consumes a JSON number and returns its text.
func (d *decoder) numberText() (string, error) {
	start := d.pos
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if d.pos < len(d.data) && d.data[d.pos] == '-' {
		d.pos++
	}
	switch {
	case d.pos >= len(d.data):
		return "", d.syntax("")
	case d.data[d.pos] == '0':
		d.pos++
	case d.data[d.pos] >= '1' && d.data[d.pos] <= '9':
		digits()
	default:
		return "", d.syntax("looking for beginning of value")
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			return "", d.syntax("after decimal point in numeric literal")
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			return "", d.syntax("in exponent of numeric literal")
		}
	}
	return string(d.data[start:d.pos]), nil
}

func (d *decoder) number(v reflect.Value) error {
	s, err := d.numberText()
	if err != nil {
		return err
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v.OverflowInt(n) {
			return typeError("number "+s, v.Type())
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || v.OverflowUint(n) {
			return typeError("number "+s, v.Type())
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		n, err := strconv.ParseFloat(s, v.Type().Bits())
		if err != nil || v.OverflowFloat(n) {
			return typeError("number "+s, v.Type())
		}
		v.SetFloat(n)
	default:
		return typeError("number", v.Type())
	}
	return nil
}

// str consumes a JSON string and returns its value, invalid UTF-8 and
// lone surrogates as U+FFFD (encoding/json's unquoting).
func (d *decoder) str() (string, error) {
	d.pos++ // "
	var out []byte
	start := d.pos
	for {
		if d.pos >= len(d.data) {
			return "", d.syntax("")
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			s := string(append(out, d.data[start:d.pos]...))
			d.pos++
			return s, nil
		case c < 0x20:
			return "", d.syntax("in string literal")
		case c == '\\':
			out = append(out, d.data[start:d.pos]...)
			d.pos++
			if d.pos >= len(d.data) {
				return "", d.syntax("")
			}
			switch e := d.data[d.pos]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := d.hex4(d.pos + 1)
				if !ok {
					return "", d.syntax("in \\u hexadecimal character escape")
				}
				d.pos += 4
				if utf16.IsSurrogate(r) {
					// A pair in two escapes makes one rune; a lone
					// surrogate is U+FFFD and the next escape stays.
					pair := unicode.ReplacementChar
					if d.pos+2 < len(d.data) && d.data[d.pos+1] == '\\' && d.data[d.pos+2] == 'u' {
						if r1, ok := d.hex4(d.pos + 3); ok {
							pair = utf16.DecodeRune(r, r1)
						}
					}
					r = pair
					if pair != unicode.ReplacementChar {
						d.pos += 6
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", d.syntax("in string escape code")
			}
			d.pos++
			start = d.pos
		case c < utf8.RuneSelf:
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				out = append(out, d.data[start:d.pos]...)
				out = utf8.AppendRune(out, unicode.ReplacementChar)
				d.pos++
				start = d.pos
				continue
			}
			d.pos += size
		}
	}
}

// hex4 reads four hex digits at i.
func (d *decoder) hex4(i int) (rune, bool) {
	if i+4 > len(d.data) {
		return 0, false
	}
	var r rune
	for _, c := range d.data[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// setNew points the nil pointer v (settable) at a new zero value of its
// element type. It stores the pointer itself rather than through
// reflect.Value.Set, whose general assignability checks (interfaces,
// channels, named types) would link about 16 KB of reflect into the
// modules for an assignment whose types are equal by construction. The
// store is an ordinary pointer write, with the collector's write barrier.
// A pointer reached through an unexported embedded field is refused, as
// reflect.Value.Set would refuse it.
func setNew(v reflect.Value) error {
	if !v.CanSet() {
		return errors.New("json: cannot set embedded pointer to unexported struct: " + v.Type().Elem().String())
	}
	p := reflect.New(v.Type().Elem()).UnsafePointer()
	*(*unsafe.Pointer)(unsafe.Pointer(v.UnsafeAddr())) = p
	return nil
}
