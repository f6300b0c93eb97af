package main

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

// table is the list of mutants (mutants.txt), kept as data: one stanza a
// mutant under the file it mutates, its fields one a line. The file's
// head describes the format.
//
//go:embed mutants.txt
var table string

// parseTable reads the mutants of a table in mutants.txt's format. Every
// mutant needs a file, a From, a To and what it breaks; a run naming an
// unknown selection is taken as a -run regexp.
func parseTable(text string) ([]mutant, error) {
	var (
		ms    []mutant
		file  string
		tests = map[string]string{}
		// seen holds the fields the current mutant has given.
		seen map[string]bool
	)
	done := func() error {
		if len(ms) > 0 && !(seen["from"] && seen["to"] && seen["breaks"]) {
			return fmt.Errorf("mutant %s: from, to and breaks are required", ms[len(ms)-1].Name)
		}
		return nil
	}
	for n, line := range strings.Split(text, "\n") {
		where := func(err error) error { return fmt.Errorf("mutants.txt:%d: %w", n+1, err) }
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, _ := strings.Cut(strings.TrimLeft(line, "\t "), " ")
		indented := line[0] == '\t' || line[0] == ' '
		if !indented {
			switch key {
			case "tests":
				name, re, ok := strings.Cut(val, " ")
				if !ok {
					return nil, where(fmt.Errorf("tests NAME REGEXP, got %q", line))
				}
				tests[name] = re
			case "file":
				file = val
			case "mutant":
				if err := done(); err != nil {
					return nil, where(err)
				}
				if file == "" {
					return nil, where(fmt.Errorf("mutant %s before any file", val))
				}
				ms = append(ms, mutant{Name: val, File: file})
				seen = map[string]bool{}
			default:
				return nil, where(fmt.Errorf("unknown directive %q", key))
			}
			continue
		}
		if len(ms) == 0 {
			return nil, where(fmt.Errorf("field %q outside a mutant", key))
		}
		m := &ms[len(ms)-1]
		if seen[key] {
			return nil, where(fmt.Errorf("mutant %s: %s given twice", m.Name, key))
		}
		seen[key] = true
		var err error
		switch key {
		case "from":
			m.From, err = strconv.Unquote(val)
		case "to":
			m.To, err = strconv.Unquote(val)
		case "run":
			m.Run = val
			if re, ok := tests[val]; ok {
				m.Run = re
			}
		case "breaks":
			m.Breaks = val
		case "equivalent":
			m.Equivalent = val
		default:
			err = fmt.Errorf("unknown field %q", key)
		}
		if err != nil {
			return nil, where(fmt.Errorf("mutant %s, %s: %w", m.Name, key, err))
		}
	}
	if err := done(); err != nil {
		return nil, err
	}
	return ms, nil
}
