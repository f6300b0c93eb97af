package formdata

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"testing"
)

func TestFileReadsBackAsAForm(t *testing.T) {
	data := []byte("\xff\xd8 not really a JPEG \r\n--boundary-like\r\n")
	body, ct := File("file", "photo.jpg", data, map[string]string{"return_file": "true", "note": "a b"})
	media, params, err := mime.ParseMediaType(ct)
	if err != nil || media != "multipart/form-data" {
		t.Fatalf("Content-Type %q: %v", ct, err)
	}
	r := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	type part struct{ name, file, value string }
	var got []part
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p)
		got = append(got, part{p.FormName(), p.FileName(), string(b)})
	}
	want := []part{{"note", "", "a b"}, {"return_file", "", "true"}, {"file", "photo.jpg", string(data)}}
	if len(got) != len(want) {
		t.Fatalf("parts %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("part %d: %q, want %q", i, got[i], want[i])
		}
	}
}

func TestFileWithoutFields(t *testing.T) {
	body, ct := File("files", "a.png", nil, nil)
	_, params, _ := mime.ParseMediaType(ct)
	f, err := multipart.NewReader(bytes.NewReader(body), params["boundary"]).ReadForm(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Value) != 0 || len(f.File["files"]) != 1 || f.File["files"][0].Filename != "a.png" || f.File["files"][0].Size != 0 {
		t.Errorf("form %+v, want one empty file a.png under files", f)
	}
}
