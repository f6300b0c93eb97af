package wirejson

import (
	"reflect"
	"strings"
	"unicode/utf8"
)

// field is one JSON member of a struct type.
type field struct {
	name      string
	index     []int
	omitEmpty bool
	tagged    bool
}

// fieldsOf lists the JSON members of struct type t in encoding/json's
// order and by its rules: exported fields under their tag name, fields of
// untagged embedded structs promoted in place, "-" left out, and of two
// members with one name the shallower (then the tagged) one kept, both
// dropped when neither wins.
func fieldsOf(t reflect.Type) []field {
	var all []field
	collect(t, nil, &all)
	type best struct {
		depth, at int
		ambiguous bool
	}
	byName := map[string]*best{}
	for i, f := range all {
		d := len(f.index)
		b, seen := byName[f.name]
		switch {
		case !seen:
			byName[f.name] = &best{depth: d, at: i}
		case d < b.depth:
			*b = best{depth: d, at: i}
		case d == b.depth:
			switch prev := all[b.at]; {
			case f.tagged && !prev.tagged:
				*b = best{depth: d, at: i}
			case f.tagged == prev.tagged:
				b.ambiguous = true
			}
		}
	}
	out := all[:0:0]
	for i, f := range all {
		if b := byName[f.name]; b.at == i && !b.ambiguous {
			out = append(out, f)
		}
	}
	return out
}

func collect(t reflect.Type, prefix []int, out *[]field) {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := jsonTag(string(sf.Tag))
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !validName(name) {
			name = ""
		}
		index := append(append(make([]int, 0, len(prefix)+1), prefix...), i)
		ft := sf.Type
		if sf.Anonymous {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if !sf.IsExported() && ft.Kind() != reflect.Struct {
				continue
			}
			if name == "" && ft.Kind() == reflect.Struct {
				collect(ft, index, out)
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		f := field{name: name, index: index, tagged: name != "", omitEmpty: hasOption(opts, "omitempty")}
		if f.name == "" {
			f.name = sf.Name
		}
		*out = append(*out, f)
	}
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// validName is encoding/json's test of a tag's name for ASCII names;
// a name with any other rune (no wire type has one) counts as valid,
// which keeps unicode's letter tables out of the module.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case c >= utf8.RuneSelf, 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
			return false
		}
	}
	return true
}

// jsonTag is the json value of a struct tag, read as
// reflect.StructTag.Lookup reads it, except that a value with a
// backslash escape (none of the wire types has one) counts as absent:
// this keeps strconv's unquoting out of the module.
func jsonTag(tag string) string {
	for tag != "" {
		i := 0
		for i < len(tag) && tag[i] == ' ' {
			i++
		}
		tag = tag[i:]
		i = 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			return ""
		}
		name := tag[:i]
		tag = tag[i+1:]
		i = 1
		for i < len(tag) && tag[i] != '"' {
			if tag[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(tag) {
			return ""
		}
		value := tag[1:i]
		tag = tag[i+1:]
		if name == "json" {
			if strings.ContainsRune(value, '\\') {
				return ""
			}
			return value
		}
	}
	return ""
}
