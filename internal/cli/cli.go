// Package cli holds what the origin and edge commands share in starting
// up, so that the two binaries read the same flag the same way.
package cli

import (
	"fmt"
	"io"
	"log/slog"
)

// Logger is the text logger at level, a --log-level value (debug, info,
// warn, error, or one of them with an offset such as "info+2"); an unknown
// level is an error naming the flag's value.
func Logger(level string, w io.Writer) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level: %w", err)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}
