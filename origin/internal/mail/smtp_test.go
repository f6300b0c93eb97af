package mail

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// smtpRelay is a loopback SMTP server: with answer it speaks the few
// commands Send uses and hands each message's DATA to got; without, it
// accepts connections and never says a word (a relay that hung).
func smtpRelay(t *testing.T, answer bool) (addr string, got chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got = make(chan string, 1)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { conn.Close() })
			if answer {
				go speakSMTP(conn, got)
			}
		}
	}()
	return ln.Addr().String(), got
}

func speakSMTP(conn net.Conn, got chan<- string) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	say := func(line string) { _, _ = conn.Write([]byte(line + "\r\n")) }
	say("220 relay ready")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		switch cmd := strings.ToUpper(strings.TrimSpace(line)); {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250 relay")
		case strings.HasPrefix(cmd, "DATA"):
			say("354 go on")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(l)
			}
			got <- b.String()
			say("250 queued")
		case strings.HasPrefix(cmd, "QUIT"):
			say("221 bye")
			return
		default:
			say("250 ok")
		}
	}
}

func TestSMTPSendsTheMessage(t *testing.T) {
	addr, got := smtpRelay(t, true)
	s := &SMTP{Addr: addr, From: "noreply@example.com"}
	if err := s.Send(t.Context(), Message{To: "a@example.com", Subject: "Hi", Body: "line 1\nline 2"}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	msg := <-got
	for _, want := range []string{"From: noreply@example.com\r\n", "To: a@example.com\r\n", "Subject: Hi\r\n", "\r\n\r\nline 1\r\nline 2"} {
		if !strings.Contains(msg, want) {
			t.Errorf("relayed message lacks %q:\n%s", want, msg)
		}
	}
}

// A relay that accepts the connection and then says nothing must not hold
// Send past its context: the reset mail's goroutine, and the shutdown
// that waits for it, depend on that.
func TestSMTPSendStopsWithItsContext(t *testing.T) {
	addr, _ := smtpRelay(t, false)
	s := &SMTP{Addr: addr, From: "noreply@example.com"}
	m := Message{To: "a@example.com", Subject: "Hi", Body: "x"}
	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		defer cancel()
		if err := s.Send(ctx, m); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Send to a silent relay = %v, want context.DeadlineExceeded", err)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- s.Send(ctx, m) }()
		time.Sleep(100 * time.Millisecond) // into the wait for the greeting
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Send cancelled = %v, want context.Canceled", err)
		}
	})
}
