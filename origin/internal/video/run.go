package video

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// tailBuffer keeps the last n bytes written (ffmpeg's diagnostics), so a
// chatty process cannot grow memory.
type tailBuffer struct {
	n int
	b []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.n {
		t.b = append(t.b[:0], t.b[len(t.b)-t.n:]...)
	}
	return len(p), nil
}

// limitedBuffer fails once more than n bytes are written.
type limitedBuffer struct {
	n int
	bytes.Buffer
}

var errOutputTooLarge = errors.New("video: tool output too large")

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if l.Len()+len(p) > l.n {
		return 0, errOutputTooLarge
	}
	return l.Buffer.Write(p)
}

// run runs bin with args to completion and returns its stdout (at most
// maxOut bytes).
func run(ctx context.Context, bin string, args []string, maxOut int) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	out := &limitedBuffer{n: maxOut}
	errb := &tailBuffer{n: 2048}
	cmd.Stdout, cmd.Stderr = out, errb
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		return nil, exitError(ctx, cmd, err, errb)
	}
	return out.Bytes(), nil
}

// exitError classifies a failed run: the context's end or the CPU limit
// (SIGXCPU, SIGKILL after the deadline) is ErrTimeout, anything else keeps
// ffmpeg's last diagnostics for the log.
func exitError(ctx context.Context, cmd *exec.Cmd, err error, errb *tailBuffer) error {
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%w: %v", ErrTimeout, ctx.Err())
		}
		return ctx.Err()
	}
	if ps := cmd.ProcessState; ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGXCPU {
			return fmt.Errorf("%w: CPU time limit", ErrTimeout)
		}
	}
	return fmt.Errorf("video: %s: %w: %s", cmd.Path, err, bytes.TrimSpace(errb.b))
}

// ffmpegArgs prefixes args with the options every ffmpeg run takes.
func (e *Engine) ffmpegArgs(args ...string) []string {
	return append([]string{
		"-hide_banner", "-nostdin", "-v", "error",
		"-timelimit", strconv.Itoa(e.cpu),
		"-threads", strconv.Itoa(e.threads),
	}, args...)
}

// stream runs ffmpeg with args, hands its stdout to consume and waits.
// consume must read until EOF or return an error (the process is then
// killed).
func (e *Engine) stream(parent context.Context, stdin io.Reader, args []string, consume func(io.Reader) error) error {
	ctx, cancel := e.withTimeout(parent)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.ffmpeg, args...)
	errb := &tailBuffer{n: 2048}
	cmd.Stderr = errb
	cmd.Stdin = stdin
	cmd.WaitDelay = time.Second
	var out io.ReadCloser
	if consume != nil {
		var err error
		if out, err = cmd.StdoutPipe(); err != nil {
			return err
		}
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("video: start ffmpeg: %w", err)
	}
	var cerr error
	if consume != nil {
		cerr = consume(out)
		if cerr != nil {
			cancel()
		}
		_, _ = io.Copy(io.Discard, out)
	}
	werr := cmd.Wait()
	if cerr != nil {
		// A read cut short by the deadline or the caller's cancel is that,
		// not a corrupt file; the cancel above (consume's own error) is
		// not the caller's and keeps consume's error.
		if err := parent.Err(); err != nil {
			return err
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%w: %v", ErrTimeout, ctx.Err())
		}
		return cerr
	}
	if werr != nil {
		return exitError(ctx, cmd, werr, errb)
	}
	return nil
}
