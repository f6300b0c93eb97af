package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/provenant/provenant/client"
)

// Exit codes; see the package documentation and docs/cli.md.
const (
	exitOK           = 0
	exitNotAuthentic = 1
	exitUsage        = 2
	exitAPI          = 3
	exitNetwork      = 4
	exitLocal        = 5
)

// usageError is a mistake in the command line or a missing setting.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// notAuthentic ends a verify whose answer is "not authentic" (after the
// answer was printed).
var errNotAuthentic = errors.New("not authentic")

// exitCode classifies err.
func exitCode(err error) int {
	var ue *usageError
	var pe *client.Error
	var ne *client.NetworkError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errNotAuthentic):
		return exitNotAuthentic
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &pe):
		return exitAPI
	case errors.As(err, &ne), errors.Is(err, context.DeadlineExceeded):
		return exitNetwork
	}
	return exitLocal
}

// reportError writes err to stderr: the problem object as JSON in --json
// mode (so scripts can read its code), a sentence otherwise.
func reportError(s stdio, asJSON bool, err error) {
	var sil silent
	if errors.Is(err, errNotAuthentic) || errors.As(err, &sil) {
		return
	}
	var pe *client.Error
	if asJSON && errors.As(err, &pe) {
		b, _ := json.Marshal(map[string]any{"error": pe})
		fmt.Fprintln(s.err, string(b))
		return
	}
	var le *client.LocalError
	if asJSON && errors.As(err, &le) {
		// The same stable code the origin would answer for the file.
		b, _ := json.Marshal(map[string]any{"error": map[string]string{"code": le.Code, "detail": err.Error()}})
		fmt.Fprintln(s.err, string(b))
		return
	}
	if asJSON {
		b, _ := json.Marshal(map[string]any{"error": map[string]string{"detail": err.Error()}})
		fmt.Fprintln(s.err, string(b))
		return
	}
	fmt.Fprintln(s.err, "provenant:", err)
	if pe != nil && pe.RequestID != "" {
		fmt.Fprintln(s.err, "request id:", pe.RequestID)
	}
}
