package wirejson_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"testing/quick"

	"github.com/provenant/provenant/shared/lookup"
	"github.com/provenant/provenant/shared/present"
	"github.com/provenant/provenant/shared/wire"
	"github.com/provenant/provenant/wasm/internal/wirejson"
)

// envelope holds every type the verifier module reads or writes.
type envelope struct {
	OK           bool                 `json:"ok"`
	Facts        wire.Facts           `json:"facts"`
	Local        *wire.Probe          `json:"local,omitempty"`
	Lookup       wire.LookupResponse  `json:"lookup"`
	Result       wire.VerifyResponse  `json:"result"`
	Verify       *wire.VerifyResponse `json:"verify"`
	Rejected     []lookup.Rejection   `json:"rejected"`
	Presentation present.Presentation `json:"presentation"`
	Anchor       wire.Anchor          `json:"anchor"`
	C2PA         *wire.C2PAFacts      `json:"c2pa,omitempty"`
	Count        int                  `json:"count,omitempty"`
	Untagged     string
	Skipped      string `json:"-"`
	hidden       string
}

// awkward are strings encoding/json escapes or repairs.
var awkward = []string{"", "plain", `<a href="x">&amp;</a>`, "tab\tnew\nline\rcr\bback\fform", "\x00\x01\x1f\x7f",
	"bad \xff utf-8 \xc3", "line\u2028para\u2029", "émoji 😀 and ſ K", `back\slash "quote" /slash`}

// awkwardFloats are floats at encoding/json's format boundaries.
var awkwardFloats = []float64{0, math.Copysign(0, -1), 1, -1.5, 0.1, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789012345678901234.0,
	5e-324, math.MaxFloat64, -math.SmallestNonzeroFloat64, 1.0 / 3, 16.413443098183}

func full(s string, f float64) envelope {
	return envelope{OK: true, Count: 3, Untagged: s, Skipped: "x", hidden: "y",
		Facts: wire.Facts{SHA256: s, PerceptualHash: "ph", Watermark: wire.WatermarkFacts{Found: true, Payload: s, Strength: f, BitErrors: 2},
			Format: "jpeg", Width: 10, Height: 20, C2PA: &wire.C2PAFacts{Chain: []string{s, ""}}},
		Local: &wire.Probe{Width: 1, Pix: []byte{0, 1, 2, 255}, Scale: f, Angle: -f, Cb: []byte{}, Cr: nil},
		Lookup: wire.LookupResponse{Candidates: []wire.LookupCandidate{{RecordID: s, Signer: wire.Signer{OrgName: s, Display: s},
			Anchor: &wire.Anchor{AuditPath: []string{"a", s}, LeafIndex: math.MaxUint64}, Network: &wire.Network{ChainID: 7}}}, C2PACA: s,
			C2PA: &wire.C2PA{C2PAManifest: wire.C2PAManifest{Actions: []wire.C2PAAction{{Action: s}}, Ingredients: []wire.C2PAIngredient{}}, Ours: true}},
		Result: wire.VerifyResponse{Authentic: true, Confidence: f, Origin: &wire.Origin{Label: s}, Chain: []wire.ChainLink{{Evidence: nil}, {Evidence: []string{}}},
			Contained: &wire.Containment{Region: wire.Region{X: f, W: -f}, Unvouched: f}, ChangedBlocks: &wire.BlockMap{Cells: []int{-1, 0, 1 << 40}}},
		Rejected:     []lookup.Rejection{{RecordID: s, Dropped: true, Reason: s}},
		Presentation: present.Presentation{Headline: s, Tone: present.ToneCaution, Checks: []present.Check{{Name: s, State: "x"}}},
	}
}

func TestMarshalMatchesEncodingJSON(t *testing.T) {
	var values []any
	for _, s := range awkward {
		for _, f := range awkwardFloats {
			values = append(values, full(s, f), full(s, -f))
		}
	}
	values = append(values, envelope{}, &envelope{}, (*envelope)(nil), []int(nil), []string{}, "x<y", 1.5, true, nil, []byte(nil), []byte("abc"))
	r := rand.New(rand.NewSource(1))
	for range 300 {
		var v envelope
		rv := reflect.ValueOf(&v).Elem()
		for i := range rv.NumField() {
			if !rv.Type().Field(i).IsExported() {
				continue
			}
			fv, ok := quick.Value(rv.Field(i).Type(), r)
			if !ok {
				t.Fatal("quick.Value failed")
			}
			rv.Field(i).Set(fv)
		}
		values = append(values, v)
	}
	for i, v := range values {
		want, werr := json.Marshal(v)
		got, gerr := wirejson.Marshal(v)
		if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("value %d:\n got %s (%v)\nwant %s (%v)", i, got, gerr, want, werr)
		}
		checkDecode(t, want)
	}
}

func TestMarshalRefusesNonFinite(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := wirejson.Marshal(full("", f)); err == nil {
			t.Errorf("Marshal with %v: no error", f)
		}
	}
	if _, err := wirejson.Marshal(map[string]int{}); err == nil {
		t.Error("Marshal of a map: no error, want it refused")
	}
}

// checkDecode decodes data into an envelope with encoding/json and
// with wirejson, plainly and strictly, and fails unless both agree on
// the error and, without one, on the value.
func checkDecode(t *testing.T, data []byte) {
	t.Helper()
	var want, got envelope
	werr := json.Unmarshal(data, &want)
	gerr := wirejson.Unmarshal(data, &got)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("Unmarshal(%q): got error %v, want %v", data, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("Unmarshal(%q):\n got %+v\nwant %+v", data, got, want)
	}
	var swant, sgot envelope
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	werr = d.Decode(&swant)
	if werr == nil && d.More() {
		werr = wirejson.ErrTrailingData
	}
	gerr = wirejson.UnmarshalStrict(data, &sgot)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("UnmarshalStrict(%q): got error %v, want %v", data, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(sgot, swant) {
		t.Fatalf("UnmarshalStrict(%q):\n got %+v\nwant %+v", data, sgot, swant)
	}
}

// decodeSeeds are inputs at the edges of encoding/json's decoding.
var decodeSeeds = []string{
	``, ` `, `null`, `{}`, `{} `, `{}x`, `{}]`, `{}}`, `{} {}`, `[]`, `"s"`, `1`, `{"ok":true}`, `{"OK":true}`, `{"oK":1}`,
	`{"ok":null}`, `{"facts":null}`, `{"local":null}`, `{"local":{"pix":"AAEC"}}`, `{"local":{"pix":"AAE"}}`, `{"local":{"pix":[1,2,300]}}`,
	`{"local":{"pix":[1,2]}}`, `{"local":{"width":1.5}}`, `{"local":{"width":1e2}}`, `{"local":{"width":-0}}`, `{"local":{"scale":1e400}}`,
	`{"local":{"scale":-1E-2}}`, `{"local":{"scale":01}}`, `{"local":{"scale":1.}}`, `{"local":{"scale":.5}}`, `{"local":{"scale":-}}`,
	`{"anchor":{"leaf_index":18446744073709551615}}`, `{"anchor":{"leaf_index":18446744073709551616}}`, `{"anchor":{"leaf_index":-0}}`,
	`{"anchor":{"audit_path":["a","b"]},"anchor":{"tree_size":2}}`, `{"rejected":[{"record_id":"a"}],"rejected":[{"reason":"b"}]}`,
	`{"rejected":[{"record_id":"a"},{"reason":"c"}],"rejected":[{"reason":"b"}]}`, `{"rejected":[]}`, `{"rejected":{}}`,
	`{"x":1}`, `{"x":{"y":[1,{"z":null}]}}`, `{"Untagged":"u"}`, `{"untagged":"u"}`, `{"Skipped":"s"}`, `{"-":"s"}`, `{"hidden":"h"}`,
	`{"facts":{"c2pa":{"chain":["a"],"active_manifest":"m","actions":[{"action":"x"}]}}}`, `{"lookup":{"c2pa":{"ours":true,"signer":"s"}}}`,
	`{"presentation":{"tone":"caution"}}`, `{"result":{"confidence":0.98,"checks":{"sha256":{"passed":true}}}}`,
	`{"untagged":"\u00e9\ud83d\ude00\ud800\u0041\udc00x\"\\\/\b\f\n\r\t"}`, `{"untagged":"\ud800\ud800"}`, `{"untagged":"\ud83d\u"}`,
	"{\"untagged\":\"\xff\xc3\"}", "{\"untagged\":\"a\tb\"}", `{"untagged":"\x"}`, `{"untagged":1}`, `{"ok":"true"}`, `{"count":true}`,
	`{"ok":tru}`, `{"ok":true,}`, `{"ok":true`, `{"ok" true}`, `{ok:true}`, `{"ok":true}garbage`, "\t{\n\"ok\" : true\r}\n",
	"\ufeff{}", `{"UNTAGGED":"u","Untagged":"v"}`, "{\"\u017fkipped\":1}", `{"rejected":[{"record_id":"a"} {"reason":"b"}]}`,
	`{"local":{"pix":"AA\r\nEC"}}`, `{"verify":{"authentic":true},"verify":null}`,
}

func TestUnmarshalMatchesEncodingJSON(t *testing.T) {
	for _, s := range decodeSeeds {
		checkDecode(t, []byte(s))
	}
	deep := strings.Repeat(`{"x":`, 10001) + "1" + strings.Repeat("}", 10001)
	checkDecode(t, []byte(`{"y":`+strings.Repeat("[", 10001)+strings.Repeat("]", 10001)+"}"))
	checkDecode(t, []byte(deep))
}

func FuzzUnmarshal(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode(t, data)
	})
}

func FuzzMarshal(f *testing.F) {
	for i, s := range awkward {
		f.Add(s, awkwardFloats[i%len(awkwardFloats)], []byte(s))
	}
	f.Fuzz(func(t *testing.T, s string, x float64, b []byte) {
		v := full(s, x)
		v.Local.Pix = b
		want, werr := json.Marshal(v)
		got, gerr := wirejson.Marshal(v)
		if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("got %s (%v)\nwant %s (%v)", got, gerr, want, werr)
		}
		if werr == nil {
			checkDecode(t, want)
		}
	})
}

// TestUnsupportedKindsAreRefused: a map or an interface-typed target is
// an error, never a silently different decoding.
func TestUnsupportedKindsAreRefused(t *testing.T) {
	var m struct {
		M map[string]int `json:"m"`
		A any            `json:"a"`
	}
	for _, in := range []string{`{"m":{"x":1}}`, `{"a":{"x":1}}`, `{"a":"s"}`, `{"a":1}`} {
		if err := wirejson.Unmarshal([]byte(in), &m); err == nil {
			t.Errorf("Unmarshal(%s): no error", in)
		}
	}
	if err := wirejson.Unmarshal([]byte(`{"m":null,"a":null}`), &m); err != nil {
		t.Errorf("null into a map and an interface: %v", err)
	}
}

type inner struct {
	X int `json:"x"`
}

// Exported is an embedded pointer type whose fields are promoted.
type Exported struct {
	Y int `json:"y"`
}

// TestEmbeddedPointers: promoted fields through embedded pointers are
// encoded and decoded as encoding/json does: a nil embedded pointer
// leaves its fields out, one to an exported type is allocated, and one
// to an unexported type is an error.
func TestEmbeddedPointers(t *testing.T) {
	type outer struct {
		*Exported
		Z int `json:"z"`
	}
	type hidden struct {
		*inner
		Z int `json:"z"`
	}
	for _, v := range []any{outer{}, outer{Exported: &Exported{Y: 2}, Z: 1}, hidden{}, hidden{inner: &inner{X: 3}}} {
		want, _ := json.Marshal(v)
		got, err := wirejson.Marshal(v)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", v, got, err, want)
		}
	}
	for _, in := range []string{`{"y":2,"z":1}`, `{"z":1}`, `{"y":null}`} {
		var want, got outer
		werr := json.Unmarshal([]byte(in), &want)
		gerr := wirejson.Unmarshal([]byte(in), &got)
		if (werr != nil) != (gerr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("Unmarshal(%s) = %+v, %v; want %+v, %v", in, got, gerr, want, werr)
		}
		var hwant, hgot hidden
		werr = json.Unmarshal([]byte(`{"x":1}`), &hwant)
		gerr = wirejson.Unmarshal([]byte(`{"x":1}`), &hgot)
		if werr == nil || gerr == nil {
			t.Errorf("Unmarshal into an unexported embedded pointer: %v, encoding/json %v; want both errors", gerr, werr)
		}
	}
}
