package framing

import (
	"context"
	"net"
	"net/http"
)

// Server is net/http's server guarded by a Scanner per connection: a
// request framed two ways is answered, and its connection closes after
// the answer. Serve scans the connections of the listener it is given.
type Server struct{ *http.Server }

// NewServer guards hs, whose Handler and ConnContext it wraps.
func NewServer(hs *http.Server) Server {
	next := hs.ConnContext
	hs.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if next != nil {
			ctx = next(ctx, c)
		}
		if sc, ok := c.(*conn); ok {
			ctx = context.WithValue(ctx, scannerKey{}, &sc.scan)
		}
		return ctx
	}
	h := hs.Handler
	if h == nil {
		h = http.DefaultServeMux
	}
	hs.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, _ := r.Context().Value(scannerKey{}).(*Scanner)
		if s == nil || !s.Conflicted() {
			h.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(&closing{w}, r)
		// A handler that wrote nothing is answered 200 by net/http
		// from the header as the handler left it.
		w.Header().Set("Connection", "close")
	})
	return Server{hs}
}

// Serve serves the connections ln accepts, each read through a Scanner.
func (s Server) Serve(ln net.Listener) error { return s.Server.Serve(listener{ln}) }

// scannerKey is where a request's context holds its connection's Scanner.
type scannerKey struct{}

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c}, nil
}

// conn scans what net/http's server reads from the connection.
type conn struct {
	net.Conn
	scan Scanner
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.scan.Scan(p[:n])
	return n, err
}

// CloseWrite is the connection's own: net/http half-closes a connection
// before it closes it with input unread, so that the client reads the
// answer rather than a reset.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// closing keeps "Connection: close" on the answer, whatever the handler
// set (a function may set Connection through response.headers): net/http
// reads the header when the status goes out.
type closing struct{ http.ResponseWriter }

func (w *closing) WriteHeader(code int) {
	w.Header().Set("Connection", "close")
	w.ResponseWriter.WriteHeader(code)
}

func (w *closing) Write(b []byte) (int, error) {
	w.Header().Set("Connection", "close")
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach net/http's writer.
func (w *closing) Unwrap() http.ResponseWriter { return w.ResponseWriter }
