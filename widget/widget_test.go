package widget

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// TestScriptsPolicy guards what docs/widget.md promises publishers about
// the scripts: no eval-like construct, no markup built from strings, no
// request to any host but the Provenant origin (every URL is built from
// the script's own base), one global.
func TestScriptsPolicy(t *testing.T) {
	forbidden := []struct {
		name string
		re   *regexp.Regexp
	}{
		{"eval", regexp.MustCompile(`\beval\s*\(`)},
		{"Function constructor", regexp.MustCompile(`\bnew\s+Function\b|\bFunction\s*\(`)},
		{"string timer", regexp.MustCompile(`set(Timeout|Interval)\s*\(\s*['"\x60]`)},
		{"innerHTML", regexp.MustCompile(`\b(inner|outer)HTML\b|insertAdjacentHTML|document\.write`)},
		{"absolute URL", regexp.MustCompile(`['"\x60]https?://`)},
		{"importScripts", regexp.MustCompile(`\bimportScripts\b`)},
	}
	for _, name := range []string{"embed.js", "worker.js"} {
		b, err := fs.ReadFile(FS(), name)
		if err != nil {
			t.Fatal(err)
		}
		// The SVG namespace name is an identifier the DOM needs to build the
		// panel's overlay, never fetched: the one absolute URL allowed.
		src := strings.ReplaceAll(string(b), "'http://www.w3.org/2000/svg'", "SVG_NAMESPACE")
		for _, f := range forbidden {
			if loc := f.re.FindStringIndex(src); loc != nil {
				line := strings.Count(src[:loc[0]], "\n") + 1
				t.Errorf("%s:%d: %s is not allowed in the widget", name, line, f.name)
			}
		}
		if got := regexp.MustCompile(`window\.\w+\s*=`).FindAllString(src, -1); name == "embed.js" && (len(got) != 1 || !strings.HasPrefix(got[0], "window.Provenant")) {
			t.Errorf("embed.js assigns globals %q, want only window.Provenant", got)
		}
	}
}
