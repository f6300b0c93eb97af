package mail

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/clock"
)

func TestOutboxRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outbox")
	o := &Outbox{Dir: dir, Clock: clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
	if msgs, err := ReadOutbox(dir); err != nil || len(msgs) != 0 {
		t.Fatalf("ReadOutbox of missing dir = %v, %v; want empty", msgs, err)
	}
	m := Message{To: "a@example.com", Subject: "Hi", Body: "line 1\nline 2"}
	if err := o.Send(context.Background(), m); err != nil {
		t.Fatalf("Send: %v", err)
	}
	msgs, err := ReadOutbox(dir)
	if err != nil || len(msgs) != 1 || msgs[0].Message != m {
		t.Fatalf("ReadOutbox = %+v, %v; want the sent message", msgs, err)
	}
	entries, _ := os.ReadDir(dir)
	info, _ := entries[0].Info()
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("outbox file mode %v, want 0600", perm)
	}
	err = o.Send(context.Background(), Message{To: "a@example.com\r\nBcc: x@evil.example", Subject: "s"})
	if !errors.Is(err, ErrHeaderInjection) {
		t.Errorf("Send with CRLF in To err = %v, want ErrHeaderInjection", err)
	}
}
