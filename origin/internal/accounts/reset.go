package accounts

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	omail "github.com/provenant/provenant/origin/internal/mail"
	"github.com/provenant/provenant/origin/internal/store"
)

// resetRecord is stored under acct/rt/<hex sha256(token)>; the token itself
// is never stored.
type resetRecord struct {
	AccountID string    `json:"account_id"`
	IssuedAt  time.Time `json:"issued_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// ForgotPassword starts a password reset for email. It returns nil whether
// or not the email is registered (and for a malformed email), and does the
// same work on the request path either way (one read-only lookup): storing
// the token and handing the mail to the Mailer happen in the background
// (Close waits for them), so neither the answer nor its timing reveals
// whether the account exists. Only internal errors are returned.
func (s *Service) ForgotPassword(ctx context.Context, email string) error {
	var raw [32]byte
	if _, err := io.ReadFull(s.cfg.Rand, raw[:]); err != nil {
		return fmt.Errorf("accounts: reset token: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	now := s.cfg.Clock.Now().UTC()
	norm, nerr := NormalizeEmail(email)
	var rec *record
	err := s.cfg.Store.View(ctx, func(tx store.Txn) error {
		if nerr != nil {
			return nil
		}
		r, err := lookupEmail(tx, norm)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		rec = r
		return err
	})
	if err != nil {
		return fmt.Errorf("accounts: forgot password: %w", err)
	}
	if rec == nil {
		return nil
	}
	rr := resetRecord{AccountID: rec.ID, IssuedAt: now, ExpiresAt: now.Add(s.cfg.ResetTTL)}
	msg := omail.Message{To: rec.Email, Subject: "Reset your Provenant password", Body: s.resetBody(token)}
	s.mailWG.Add(1)
	go func() {
		defer s.mailWG.Done()
		// The request context ends with the response (and may be a
		// fasthttp.RequestCtx, which must not be retained): the mail gets
		// its own, bounded, so that Close (at shutdown) waits for it no
		// longer than resetMailTimeout.
		bg, cancel := context.WithTimeout(context.Background(), resetMailTimeout)
		defer cancel()
		select {
		case s.mailSem <- struct{}{}:
			defer func() { <-s.mailSem }()
		case <-bg.Done():
			s.log.Error("reset mail not sent: too many mails in flight", "account_id", rr.AccountID)
			return
		}
		if err := s.storeResetToken(bg, token, rr); err != nil {
			s.log.Error("reset token not stored", "account_id", rr.AccountID, "err", err)
			return
		}
		if err := s.cfg.Mailer.Send(bg, msg); err != nil {
			s.log.Error("reset mail not sent", "account_id", rr.AccountID, "err", err)
			return
		}
		s.log.Info("reset mail sent", "account_id", rr.AccountID)
	}()
	return nil
}

// resetMailTimeout bounds one reset mail, from its turn in the queue to
// the relay's answer.
const resetMailTimeout = 30 * time.Second

func (s *Service) storeResetToken(ctx context.Context, token string, rr resetRecord) error {
	b, err := json.Marshal(rr)
	if err != nil {
		return err
	}
	return s.cfg.Store.Update(ctx, func(tx store.Txn) error { return tx.Set(resetKey(hashToken(token)), b) })
}

func (s *Service) resetBody(token string) string {
	ttl := s.cfg.ResetTTL.Round(time.Minute)
	link := token
	if s.cfg.ResetURL != "" {
		link = s.cfg.ResetURL + "?token=" + url.QueryEscape(token)
	}
	return "Someone asked to reset the password of your Provenant account.\n\n" +
		"Use this to choose a new password within " + humanDuration(ttl) + ":\n\n" + link + "\n\n" +
		"Reset token: " + token + "\n\n" +
		"If it was not you, ignore this mail; your password is unchanged.\n"
}

// ResetPassword sets a new password using a token from ForgotPassword. The
// token is consumed in the same transaction that sets the password, and
// every session (JWT) issued before ends, as with EndSessions; a login in
// the same second gets a token that is accepted. It returns
// ErrInvalidResetToken for an unknown, used or expired token and a
// *validate.FieldError for an unacceptable password.
func (s *Service) ResetPassword(ctx context.Context, token, newPassword string) error {
	if token == "" || len(token) > 256 {
		return ErrInvalidResetToken
	}
	if err := validatePassword("password", newPassword); err != nil {
		return err
	}
	hash, err := hashPassword(s.cfg.Rand, s.cfg.Password, newPassword)
	if err != nil {
		return err
	}
	key := resetKey(hashToken(token))
	var accountID string
	var expired bool
	err = s.cfg.Store.Update(ctx, func(tx store.Txn) error {
		expired = false
		rr, err := store.GetJSON[resetRecord](tx, key)
		if errors.Is(err, store.ErrNotFound) {
			return ErrInvalidResetToken
		}
		if err != nil {
			return fmt.Errorf("reset token: %w", err)
		}
		now := s.cfg.Clock.Now().UTC()
		if !now.Before(rr.ExpiresAt) {
			expired = true // delete it, commit, then report it invalid
			return tx.Delete(key)
		}
		rec, err := getRecord(tx, rr.AccountID)
		if errors.Is(err, ErrNotFound) {
			return ErrInvalidResetToken
		}
		if err != nil {
			return err
		}
		// A token issued before an earlier reset is void.
		if !rec.CredentialsChangedAt.IsZero() && rr.IssuedAt.Before(rec.CredentialsChangedAt) {
			return ErrInvalidResetToken
		}
		rec.PasswordHash = hash
		rec.CredentialsChangedAt = now
		rec.SessionVersion++ // every session ends; a login right after gets the new version
		if err := tx.Delete(key); err != nil {
			return err
		}
		accountID = rec.ID
		return store.PutJSON(tx, userKey(rec.ID), rec)
	})
	if err != nil {
		return fmt.Errorf("accounts: reset password: %w", err)
	}
	if expired {
		return ErrInvalidResetToken
	}
	s.log.Info("password reset", "account_id", accountID)
	return nil
}

// humanDuration says d, rounded to the minute, as a person would: "30
// minutes", "1 hour", "1 hour 30 minutes", "2 days" (never "30m0s").
func humanDuration(d time.Duration) string {
	d = d.Round(time.Minute)
	if d < time.Minute {
		return "a minute"
	}
	unit := func(n int64, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.FormatInt(n, 10) + " " + one + "s"
	}
	days, hours, mins := int64(d/(24*time.Hour)), int64(d%(24*time.Hour)/time.Hour), int64(d%time.Hour/time.Minute)
	var parts []string
	if days > 0 {
		parts = append(parts, unit(days, "day"))
	}
	if hours > 0 {
		parts = append(parts, unit(hours, "hour"))
	}
	if mins > 0 {
		parts = append(parts, unit(mins, "minute"))
	}
	return strings.Join(parts, " ")
}
