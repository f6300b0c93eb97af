package content

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/provenant/provenant/origin/internal/events"
	"github.com/provenant/provenant/shared/record"
)

// TestPriorOrder: the record an upload derives from, in the order the
// verdict uses.
func TestPriorOrder(t *testing.T) {
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	anchored := at(30)
	tests := []struct {
		name  string
		links []link
		want  string
	}{
		{"watermark beats an earlier perceptual match", []link{
			{rec: &Record{ID: "early", CreatedAt: at(1)}, evidence: []string{EvidencePerceptualHash}},
			{rec: &Record{ID: "marked", CreatedAt: at(5)}, evidence: []string{EvidenceWatermark}},
		}, "marked"},
		{"earliest creation wins without watermark", []link{
			{rec: &Record{ID: "later", CreatedAt: at(5)}, evidence: []string{EvidenceSHA256}},
			{rec: &Record{ID: "first", CreatedAt: at(1)}, evidence: []string{EvidencePerceptualHash}},
		}, "first"},
		{"anchored precedes pending", []link{
			{rec: &Record{ID: "pending", CreatedAt: at(1)}, evidence: []string{EvidencePerceptualHash}},
			{rec: &Record{ID: "anchored", CreatedAt: at(2), AnchoredAt: &anchored}, evidence: []string{EvidencePerceptualHash}},
		}, "anchored"},
		{"equal times: the parent before its derivative", []link{
			{rec: &Record{ID: "child", CreatedAt: at(1), ParentRecordID: "parent"}, evidence: []string{EvidenceOriginalSHA256}},
			{rec: &Record{ID: "parent", CreatedAt: at(1)}, evidence: []string{EvidencePerceptualHash}},
		}, "parent"},
		{"equal times: an original before another's derivative", []link{
			{rec: &Record{ID: "child", CreatedAt: at(1), ParentRecordID: "elsewhere"}, evidence: []string{EvidenceSHA256}},
			{rec: &Record{ID: "plain", CreatedAt: at(1)}, evidence: []string{EvidencePerceptualHash}},
		}, "plain"},
		{"equal times, no parents: stronger evidence", []link{
			{rec: &Record{ID: "near", CreatedAt: at(1)}, evidence: []string{EvidencePerceptualHash}},
			{rec: &Record{ID: "exact", CreatedAt: at(1)}, evidence: []string{EvidenceSHA256, EvidencePerceptualHash}},
		}, "exact"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := prior(tt.links); got == nil || got.rec.ID != tt.want {
				t.Errorf("prior() = %v, want %s", got, tt.want)
			}
		})
	}
	if got := prior(nil); got != nil {
		t.Errorf("prior(nil) = %v, want nil", got)
	}
}

// TestSignLinksPriorContent: Sign over the real store links an upload that
// is already signed content: a derivative for the same account, a refusal
// for another unless declared, a refusal for a declared parent that does
// not match.
func TestSignLinksPriorContent(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	news, copycat := e.newsAndCopycat()
	orig := e.sign(news, photo(t, 1, 640, 480), "a.jpg")
	other := e.sign(news, photo(t, 2, 640, 480), "b.jpg")
	copyOf := reencode(t, orig.File, 80)

	_, err := e.svc.Sign(ctx, SignInput{Owner: copycat.id, SigningKeyID: copycat.keyID, File: copyOf})
	var already *AlreadySignedError
	if !errors.As(err, &already) || !errors.Is(err, ErrAlreadySigned) || already.RecordID != orig.Record.ID || already.Evidence[0] != EvidenceWatermark {
		t.Fatalf("Sign(another's copy) err = %v, want AlreadySignedError for %s by watermark first", err, orig.Record.ID)
	}
	_, err = e.svc.Sign(ctx, SignInput{Owner: copycat.id, SigningKeyID: copycat.keyID, File: copyOf, DerivativeOf: other.Record.ID})
	if !errors.Is(err, ErrDerivativeMismatch) {
		t.Errorf("Sign(declared wrong parent) err = %v, want ErrDerivativeMismatch", err)
	}
	d, err := e.svc.Sign(ctx, SignInput{Owner: copycat.id, SigningKeyID: copycat.keyID, File: copyOf, DerivativeOf: orig.Record.ID})
	if err != nil {
		t.Fatalf("Sign(declared parent) = %v", err)
	}
	if d.Record.ParentRecordID != orig.Record.ID {
		t.Errorf("declared derivative parent = %q, want %s", d.Record.ParentRecordID, orig.Record.ID)
	}
	if data := e.pub.LastData(events.ContentSigned); !strings.Contains(data, `"parent_record_id":"`+orig.Record.ID+`"`) || !strings.Contains(data, `"parent_evidence":["watermark"`) {
		t.Errorf("content.signed data of the derivative = %s, want parent_record_id %s and the watermark evidence first", data, orig.Record.ID)
	}
	rec, err := record.Parse(e.record(d.Record.ID).Canonical)
	if err != nil || rec.Parent == nil || rec.Parent.String() != orig.Record.ID {
		t.Errorf("signed record of the derivative: parent %v, err %v; want %s inside the signed bytes", rec, err, orig.Record.ID)
	}
	own := e.sign(news, reencode(t, orig.File, 70), "a-again.jpg")
	if own.Record.ParentRecordID != orig.Record.ID {
		t.Errorf("same account's re-export parent = %q, want %s", own.Record.ParentRecordID, orig.Record.ID)
	}
	if fresh := e.sign(copycat, photo(t, 3, 640, 480), "c.jpg"); fresh.Record.ParentRecordID != "" {
		t.Errorf("new content parent = %q, want none", fresh.Record.ParentRecordID)
	}
	lineage, err := e.svc.Lineage(ctx, e.record(d.Record.ID))
	if err != nil || len(lineage) != 2 || lineage[0].ID != orig.Record.ID || lineage[1].ID != d.Record.ID {
		t.Errorf("Lineage(derivative) = %v, %v; want [%s %s]", lineage, err, orig.Record.ID, d.Record.ID)
	}
}
