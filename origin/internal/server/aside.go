package server

import (
	"errors"
	"net"
	"net/http"
)

// serveAside serves srv on ln in the background, beside the public
// listener, at most once: not when srv is nil (the listener is not
// configured), the server is closed, or *serving says it is served
// already; it sets *serving. It logs listening with the address, and
// stopped with the error if Serve ends other than by a shutdown. The
// caller holds closeMu, which guards *serving and closed.
func (s *Server) serveAside(srv *http.Server, ln net.Listener, serving *bool, listening, stopped string) {
	if srv == nil || s.closed || *serving {
		return
	}
	*serving = true
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error(stopped, "err", err)
		}
	}()
	s.log.Info(listening, "addr", ln.Addr().String())
}
