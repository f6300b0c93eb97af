package server

import (
	"encoding/json"
	"fmt"
	"image"
	"strings"
	"testing"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/origin/internal/testkit"
)

// scaledTestdata returns testdata photo name scaled to w×h (cut to the
// aspect first) as a JPEG of quality 92.
func scaledTestdata(t *testing.T, name string, w, h int) []byte {
	t.Helper()
	src := testkit.DecodeJPEG(t, readTestdata(t, name))
	b := src.Bounds()
	cw, ch := b.Dx(), b.Dx()*h/w
	if ch > b.Dy() {
		cw, ch = b.Dy()*w/h, b.Dy()
	}
	r := image.Rect(0, 0, cw, ch).Add(b.Min).Add(image.Pt((b.Dx()-cw)/2, (b.Dy()-ch)/2))
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, r, draw.Src, nil)
	return testkit.EncodeJPEG(t, dst, 92)
}

// smallResp is a verify answer with the members this test is about;
// keys records which members the JSON carried at all.
type smallResp struct {
	Authentic  bool    `json:"authentic"`
	Confidence float64 `json:"confidence"`
	Match      string  `json:"match"`
	RecordID   string  `json:"record_id"`
	Checks     map[string]struct {
		Passed        bool   `json:"passed"`
		Details       string `json:"details"`
		NotApplicable bool   `json:"not_applicable"`
	} `json:"checks"`
	Resembles *struct {
		RecordID string `json:"record_id"`
		Relation string `json:"relation"`
	} `json:"resembles"`
	keys map[string]json.RawMessage
	raw  string
}

func (ts *testServer) verifySmall(data []byte) smallResp {
	ts.t.Helper()
	v, body := verifyAs[smallResp](ts, data)
	if err := json.Unmarshal(body, &v.keys); err != nil {
		ts.t.Fatal(err)
	}
	v.raw = string(body)
	return v
}

// TestSignSmallPictures: every decodable picture can be signed. Pictures
// whose short side reaches the watermark's minimum are marked; smaller
// ones are signed without a watermark, the record says so, and verify
// answers from the other checks: the signed file is authentic (SHA-256),
// its watermark check "not applicable"; a re-encoded copy of an unmarked
// picture is only a perceptual match (nothing the signature covers ties
// it to the record), while a marked one stays authentic after a
// high-quality re-encode. The verify answer carries every member of the
// spec, blockchain_tx included, while the record is pending.
func TestSignSmallPictures(t *testing.T) {
	for _, tc := range []struct {
		w, h   int
		marked bool
	}{{320, 240, true}, {200, 150, false}, {64, 48, false}} {
		t.Run(fmt.Sprintf("%dx%d", tc.w, tc.h), func(t *testing.T) {
			// A server per size: the sizes are the same photo, which
			// would otherwise be linked as derivatives of each other.
			ts := startServer(t, "", nil)
			s := ts.newSignerOrg("desk@small.example", "Small Pictures")
			r := ts.signFile(s, scaledTestdata(t, "meadow.jpg", tc.w, tc.h), nil)
			ts.mustStatus(r, 201, "sign")
			id := r.header.Get("X-Record-Id")
			wantState := map[bool]string{true: "embedded", false: "none"}[tc.marked]
			if got := r.header.Get("X-Watermark"); got != wantState {
				t.Errorf("X-Watermark = %q, want %q", got, wantState)
			}
			reason := r.header.Get("X-Watermark-Reason")
			if tc.marked != (r.header.Get("X-Watermark-Payload") != "") || tc.marked != (reason == "") {
				t.Errorf("payload %q reason %q, want a payload and no reason only when marked", r.header.Get("X-Watermark-Payload"), reason)
			}
			if !tc.marked && !strings.HasPrefix(reason, "too small to carry a watermark when signed") {
				t.Errorf("X-Watermark-Reason = %q, want the too-small reason", reason)
			}
			rec := ts.do("GET", "/api/v1/content-records/"+id, s.apiKey, nil)
			ts.mustStatus(rec, 200, "record detail")
			if m := rec.json(t); m["watermark"] != wantState || (m["watermark_reason"] != nil) == tc.marked {
				t.Errorf("record watermark %v reason %v, want %s and a reason only when none", m["watermark"], m["watermark_reason"], wantState)
			}

			signed := r.body
			v := ts.verifySmall(signed)
			if !v.Authentic || v.Match != "exact" || v.RecordID != id {
				t.Errorf("verify(signed file) authentic %v match %q record %q, want authentic exact %s:\n%s", v.Authentic, v.Match, v.RecordID, id, v.raw)
			}
			for _, k := range []string{"authentic", "confidence", "origin", "signer", "blockchain_tx", "timestamp", "checks"} {
				if _, ok := v.keys[k]; !ok {
					t.Errorf("verify(signed file): member %q missing while pending:\n%s", k, v.raw)
				}
			}
			if string(v.keys["blockchain_tx"]) != `""` {
				t.Errorf("blockchain_tx = %s while pending, want \"\"", v.keys["blockchain_tx"])
			}
			wm := v.Checks["watermark"]
			if !tc.marked && (!wm.NotApplicable || wm.Passed || !strings.HasPrefix(wm.Details, "not applicable: too small to carry a watermark when signed")) {
				t.Errorf("watermark check %+v, want not applicable: too small to carry a watermark when signed", wm)
			}
			if tc.marked && wm.NotApplicable {
				t.Errorf("watermark check %+v is not applicable on a marked picture", wm)
			}

			v = ts.verifySmall(reencode(t, signed, 1, 90))
			switch {
			case tc.marked:
				if !v.Authentic || v.Match != "reencoded" || v.RecordID != id {
					t.Errorf("verify(re-encoded) authentic %v match %q record %q, want authentic reencoded %s:\n%s", v.Authentic, v.Match, v.RecordID, id, v.raw)
				}
			default:
				if v.Authentic || v.Match != "perceptual" || v.Resembles == nil || v.Resembles.RecordID != id || v.Resembles.Relation != "perceptual_lookalike" {
					t.Errorf("verify(re-encoded unmarked) authentic %v match %q resembles %+v, want a perceptual look-alike of %s:\n%s", v.Authentic, v.Match, v.Resembles, id, v.raw)
				}
				if wm := v.Checks["watermark"]; !wm.NotApplicable || wm.Passed {
					t.Errorf("verify(re-encoded unmarked) watermark check %+v, want not applicable", wm)
				}
				for _, k := range []string{"origin", "signer", "blockchain_tx", "timestamp"} {
					if _, ok := v.keys[k]; !ok {
						t.Errorf("verify(re-encoded): member %q missing:\n%s", k, v.raw)
					}
				}
			}
		})
	}
}
