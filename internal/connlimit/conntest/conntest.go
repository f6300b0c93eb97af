// Package conntest speaks HTTP/1.1 by hand on one TCP connection, for the
// tests of connection budgets and early refusals: they send what no
// well-behaved client sends (a body declared and never sent, a header
// that never ends) and choose the connection's source address, so that
// one test can be many clients.
package conntest

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// Dial connects to addr from the loopback address src ("" lets the system
// choose), within two seconds, and closes the connection when the test
// ends; it fails t if it cannot connect.
func Dial(t testing.TB, src, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: 2 * time.Second}
	if src != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(src)}
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Exchange writes req, verbatim, on a new connection from src to addr and
// reads the answer; wait bounds the whole exchange. The answer's body is
// read whole before Exchange returns, so it stays readable after the
// connection closes. The error is the write's or the read's: a server
// that closes without answering, or answers after wait, gives an error,
// not a response.
func Exchange(t testing.TB, src, addr, req string, wait time.Duration) (*http.Response, error) {
	t.Helper()
	c := Dial(t, src, addr)
	_ = c.SetDeadline(time.Now().Add(wait))
	if _, err := io.WriteString(c, req); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, err
}
