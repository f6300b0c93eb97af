// Package mail sends the origin's transactional mail (password resets)
// through the Mailer interface: an outbox directory by default, SMTP when
// configured.
package mail

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/smtp"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/provenant/provenant/shared/clock"
)

// Message is one plain-text mail.
type Message struct {
	To      string `json:"to"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
}

// Mailer delivers messages. Send returns nil once the message is accepted
// for delivery (written to the outbox, or accepted by the SMTP relay).
// Implementations are safe for concurrent use.
type Mailer interface {
	Send(ctx context.Context, m Message) error
}

// Outbox is a Mailer that writes each message as a JSON file in Dir (mode
// 0600, one file per message, written atomically via rename). It is the
// default in development and the mailer tests inspect.
type Outbox struct {
	Dir   string
	Clock clock.Clock
}

// OutboxFile is the JSON document written for each message.
type OutboxFile struct {
	Message
	From   string    `json:"from,omitempty"`
	SentAt time.Time `json:"sent_at"`
}

// Send implements Mailer.
func (o *Outbox) Send(_ context.Context, m Message) error {
	if err := validateHeaders(m); err != nil {
		return err
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return fmt.Errorf("mail: create outbox: %w", err)
	}
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return fmt.Errorf("mail: random file name: %w", err)
	}
	now := o.Clock.Now().UTC()
	name := now.Format("20060102T150405.000000000Z") + "-" + hex.EncodeToString(rnd[:]) + ".json"
	b, err := json.MarshalIndent(OutboxFile{Message: m, SentAt: now}, "", "  ")
	if err != nil {
		return fmt.Errorf("mail: encode: %w", err)
	}
	tmp := filepath.Join(o.Dir, "."+name+".tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("mail: write outbox file: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(o.Dir, name)); err != nil {
		return fmt.Errorf("mail: publish outbox file: %w", err)
	}
	return nil
}

// Ready reports whether a message could be written now: it creates Dir if
// needed and writes and removes a hidden probe file (which ReadOutbox
// skips).
func (o *Outbox) Ready(_ context.Context) error {
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return fmt.Errorf("mail: create outbox: %w", err)
	}
	f, err := os.CreateTemp(o.Dir, ".ready-*.tmp")
	if err != nil {
		return fmt.Errorf("mail: outbox not writable: %w", err)
	}
	name := f.Name()
	cerr := f.Close()
	if err := errors.Join(cerr, os.Remove(name)); err != nil {
		return fmt.Errorf("mail: outbox probe: %w", err)
	}
	return nil
}

// ReadOutbox returns the messages in an outbox directory, oldest first. It
// is meant for tests and operators.
func ReadOutbox(dir string) ([]OutboxFile, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mail: read outbox: %w", err)
	}
	var out []OutboxFile
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("mail: read %s: %w", e.Name(), err)
		}
		var f OutboxFile
		if err := json.Unmarshal(b, &f); err != nil {
			return nil, fmt.Errorf("mail: decode %s: %w", e.Name(), err)
		}
		out = append(out, f)
	}
	return out, nil
}

// SMTP is a Mailer that relays through an SMTP server with net/smtp
// (STARTTLS when the server offers it; PLAIN auth when Username is set,
// which net/smtp only allows over TLS or to localhost). Send stops when
// its context ends (deadline or cancel): the dial and every exchange after
// it are cut off then, so a relay that stops answering cannot hold a
// caller (or a shutdown that waits for the mail in flight) forever.
type SMTP struct {
	Addr     string // host:port
	From     string
	Username string
	Password string
}

// Send implements Mailer.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	if err := validateHeaders(m); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(s.Addr)
	if err != nil {
		return fmt.Errorf("mail: smtp address: %w", err)
	}
	body := "From: " + s.From + "\r\nTo: " + m.To + "\r\nSubject: " + m.Subject +
		"\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" +
		strings.ReplaceAll(m.Body, "\n", "\r\n")
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("mail: smtp dial: %w", err)
	}
	// The context's end (deadline or cancel) unblocks whatever read or
	// write is waiting.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if err := s.exchange(conn, host, m.To, []byte(body)); err != nil {
		if ctx.Err() != nil {
			err = errors.Join(ctx.Err(), err)
		}
		return fmt.Errorf("mail: smtp send: %w", err)
	}
	return nil
}

// exchange sends one message over conn as smtp.SendMail does, and closes
// conn.
func (s *SMTP) exchange(conn net.Conn, host, to string, body []byte) error {
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		_ = conn.Close()
		return err
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}); err != nil {
			return err
		}
	}
	if s.Username != "" {
		if ok, _ := c.Extension("AUTH"); !ok {
			return errors.New("server does not offer AUTH")
		}
		if err := c.Auth(smtp.PlainAuth("", s.Username, s.Password, host)); err != nil {
			return err
		}
	}
	if err := c.Mail(s.From); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(body); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// Ready reports whether the relay is configured (an address and a sender).
// It does not dial: a readiness probe must stay cheap, and a relay that is
// down is reported by Send.
func (s *SMTP) Ready(_ context.Context) error {
	if s.Addr == "" || s.From == "" {
		return errors.New("mail: smtp address or sender not configured")
	}
	return nil
}

// ErrHeaderInjection is returned when a header field contains a line break.
var ErrHeaderInjection = errors.New("mail: line break in header field")

func validateHeaders(m Message) error {
	if strings.ContainsAny(m.To, "\r\n") || strings.ContainsAny(m.Subject, "\r\n") {
		return ErrHeaderInjection
	}
	return nil
}
