package httpapi

import (
	"context"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
	"golang.org/x/sys/unix"

	"github.com/provenant/provenant/origin/internal/periodic"
)

// disconnectPoll is how often clientContext looks at the connection.
const disconnectPoll = 200 * time.Millisecond

// clientContext returns a context for work done on behalf of the request
// that ends when the client goes away, so that the work (ffmpeg runs) is
// stopped instead of finishing for nobody: fasthttp's request context
// ends only when the server shuts down. The connection is polled every
// disconnectPoll for the peer's close or reset (POLLRDHUP, POLLHUP,
// POLLERR) without reading from it, so pipelined requests are left
// untouched. A client that half-closes its side after sending the
// request counts as gone. The caller must call cancel when the handler
// returns (the connection then goes back to fasthttp).
func clientContext(ctx *fasthttp.RequestCtx) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(Context(ctx))
	sc, ok := ctx.Conn().(syscall.Conn)
	if !ok {
		return c, cancel
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return c, cancel
	}
	go periodic.Every(c, disconnectPoll, func() bool {
		if peerGone(raw) {
			cancel()
			return true
		}
		return false
	})
	return c, cancel
}

// peerGone reports whether the peer of raw closed or reset the
// connection (an error reaching the descriptor counts as gone).
func peerGone(raw syscall.RawConn) bool {
	gone := false
	if err := raw.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
		n, err := unix.Poll(fds, 0)
		gone = err == nil && n > 0 && fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0
	}); err != nil {
		return true
	}
	return gone
}
