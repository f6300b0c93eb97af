package video

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
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

// childEnv is the whole environment of every child: nothing of the
// server's own (credentials included) reaches ffmpeg, and glibc keeps at
// most two malloc arenas, which halves the address space a decoder
// reserves (measured 640 → 410 MiB for a 1080p decode) and so the
// memory limit it needs.
var childEnv = []string{"MALLOC_ARENA_MAX=2"}

// command prepares bin with args as a child that can be bounded: in a
// process group of its own, so that the context's end kills the group
// (anything ffmpeg started included) and not only the leader, and killed
// as well if the server's thread that started it dies.
func command(ctx context.Context, bin string, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = childEnv
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = time.Second
	return cmd
}

// killGroup kills cmd's process group (its pid is the group id, Setpgid).
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return cmd.Process.Kill()
	}
	return nil
}

// start starts cmd and caps its address space at mem bytes (RLIMIT_AS),
// so that no input can make it allocate past the share of the video
// memory budget its run reserved: an allocation beyond it fails inside
// ffmpeg, which exits with an error. The limit is set on the running
// child (prlimit), microseconds after exec, before ffmpeg has parsed its
// options or opened the input.
func start(cmd *exec.Cmd, mem int64) error {
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("video: start %s: %w", cmd.Path, err)
	}
	lim := unix.Rlimit{Cur: uint64(mem), Max: uint64(mem)}
	// ESRCH: the child already ran to its end; Wait reports how.
	if err := unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_AS, &lim, nil); err != nil && !errors.Is(err, unix.ESRCH) {
		_ = killGroup(cmd)
		_ = cmd.Wait()
		return fmt.Errorf("video: memory limit of %s: %w", cmd.Path, err)
	}
	return nil
}

// wait waits for cmd and records the peak resident memory and the CPU
// time it used.
func (e *Engine) wait(cmd *exec.Cmd) error {
	err := cmd.Wait()
	if ps := cmd.ProcessState; ps != nil {
		e.childCPU.Add(int64(ps.UserTime() + ps.SystemTime()))
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			rss := ru.Maxrss << 10 // KiB on Linux
			for {
				old := e.peakRSS.Load()
				if rss <= old || e.peakRSS.CompareAndSwap(old, rss) {
					break
				}
			}
		}
	}
	return err
}

// PeakChildRSS returns the largest resident memory, in bytes, that any
// ffmpeg or ffprobe process of the engine reached so far.
func (e *Engine) PeakChildRSS() int64 { return e.peakRSS.Load() }

// run runs bin with args to completion under mem bytes of address space
// and returns its stdout (at most maxOut bytes).
func (e *Engine) run(ctx context.Context, bin string, args []string, mem int64, maxOut int) ([]byte, error) {
	cmd := command(ctx, bin, args)
	out := &limitedBuffer{n: maxOut}
	errb := &tailBuffer{n: 2048}
	cmd.Stdout, cmd.Stderr = out, errb
	if err := start(cmd, mem); err != nil {
		return nil, err
	}
	if err := e.wait(cmd); err != nil {
		return nil, exitError(ctx, cmd, err, errb, mem)
	}
	return out.Bytes(), nil
}

// outOfMemory reports whether ffmpeg's last diagnostics say an allocation
// failed: the address-space limit, not the file's structure, stopped it.
func outOfMemory(diag []byte) bool {
	s := string(diag)
	return strings.Contains(s, "Cannot allocate memory") || strings.Contains(s, "malloc of size") ||
		strings.Contains(s, "failed to map segment") || strings.Contains(s, "out of memory")
}

// exitError classifies a failed run: the context's end or the CPU limit
// (SIGXCPU, SIGKILL after the deadline) is ErrTimeout, a failed
// allocation under the memory limit is ErrLimit, anything else keeps
// ffmpeg's last diagnostics for the log.
func exitError(ctx context.Context, cmd *exec.Cmd, err error, errb *tailBuffer, mem int64) error {
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
	if outOfMemory(errb.b) {
		return fmt.Errorf("%w: processing needs more than the %d MiB of memory a video process may use", ErrLimit, mem>>20)
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

// pipeSize is the capacity asked for the pipe frames come through: a
// 1080p luminance frame is 2 MiB, which the default 64 KiB pipe hands
// over in 32 reads, each a wake-up of the reading goroutine.
const pipeSize = 1 << 20

// widenPipe asks the kernel for a pipeSize pipe behind r when r is one;
// a refusal (a lower system maximum) leaves it as it was.
func widenPipe(r io.Reader) {
	f, ok := r.(*os.File)
	if !ok {
		return
	}
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize) })
	}
}

// stream runs ffmpeg with args under mem bytes of address space and the
// deadline wall, hands its stdout to consume and waits. consume must read
// until EOF or return an error (the process group is then killed).
func (e *Engine) stream(parent context.Context, wall time.Duration, mem int64, stdin io.Reader, args []string, consume func(io.Reader) error) error {
	ctx, cancel := context.WithTimeout(parent, wall)
	defer cancel()
	cmd := command(ctx, e.ffmpeg, args)
	errb := &tailBuffer{n: 2048}
	cmd.Stderr = errb
	cmd.Stdin = stdin
	var out io.ReadCloser
	if consume != nil {
		var err error
		if out, err = cmd.StdoutPipe(); err != nil {
			return err
		}
		widenPipe(out)
	}
	if err := start(cmd, mem); err != nil {
		return err
	}
	var cerr error
	if consume != nil {
		cerr = consume(out)
		if cerr != nil {
			cancel()
		}
		_, _ = io.Copy(io.Discard, out)
	}
	werr := e.wait(cmd)
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
		if errors.Is(cerr, ErrCorrupt) && outOfMemory(errb.b) {
			return fmt.Errorf("%w: processing needs more than the %d MiB of memory a video process may use", ErrLimit, mem>>20)
		}
		return cerr
	}
	if werr != nil {
		return exitError(ctx, cmd, werr, errb, mem)
	}
	return nil
}
