package httpapi

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

// svgTexts parses doc as XML and returns the character data of its
// <title> and <text> elements; it fails on any <script> element, event
// attribute or external reference.
func svgTexts(t *testing.T, doc []byte) []string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	var texts []string
	var in string
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("badge is not well-formed XML: %v\n%s", err, doc)
		}
		switch v := tok.(type) {
		case xml.StartElement:
			if v.Name.Local == "script" || v.Name.Local == "foreignObject" || v.Name.Local == "a" || v.Name.Local == "image" {
				t.Fatalf("badge has a <%s> element:\n%s", v.Name.Local, doc)
			}
			for _, a := range v.Attr {
				if strings.HasPrefix(strings.ToLower(a.Name.Local), "on") || a.Name.Local == "href" {
					t.Fatalf("badge has attribute %s:\n%s", a.Name.Local, doc)
				}
			}
			in = v.Name.Local
		case xml.CharData:
			if in == "text" || in == "title" {
				texts = append(texts, string(v))
			}
		case xml.EndElement:
			in = ""
		}
	}
	return texts
}

func TestBadgeSVGEscapes(t *testing.T) {
	for _, tt := range []struct {
		name, left, right string
	}{
		{"script tag", `<script>alert(1)</script>`, "verified"},
		{"ampersand", "Smith & Sons", "3 signed · 1 anchored"},
		{"quotes", `"Quoted" 'org'`, `"><svg onload=alert(1)>`},
		{"plain", "Provenant", "not found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := badgeSVG(tt.left, "#000", tt.right, "#fff")
			if bytes.Contains(doc, []byte("<script")) || bytes.Contains(doc, []byte("<svg onload")) {
				t.Fatalf("raw markup from input in badge:\n%s", doc)
			}
			texts := svgTexts(t, doc)
			want := []string{tt.left + ": " + tt.right, tt.left, tt.right}
			if strings.Join(texts, "\x00") != strings.Join(want, "\x00") {
				t.Errorf("texts %q, want %q", texts, want)
			}
		})
	}
}

func TestClip(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"much longer than ten", 10, "much long…"},
		{"ééééééé", 3, "éé…"},
	} {
		if got := clip(tt.in, tt.n); got != tt.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
