package server

import (
	"errors"
	"io"
	"net"
	"net/http"

	"github.com/svc-dev/svc/server/apierr"
)

// firstBodyBuffer is where reading a body of declared length starts: a
// small body is read into one buffer of its size, a large one into
// buffers that double toward it.
const firstBodyBuffer = 64 << 10

// readBody reads a request body up to server-max-body-bytes; a larger one
// is refused (413 SVC102) before anything reaches the database, and at once
// when its Content-Length says so. The buffer grows toward the declared
// length only as bytes arrive, so a client that declares a large body and
// sends little holds little memory, and the body ends in a buffer of
// exactly its size.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	limit := int64(s.cfg.ServerMaxBodyBytes)
	if r.ContentLength > limit {
		return nil, apierr.BodyTooLarge(s.cfg.ServerMaxBodyBytes)
	}
	var body []byte
	var err error
	if r.ContentLength > 0 {
		body, err = readDeclared(r.Body, int(r.ContentLength))
	} else {
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	}
	var maxBytes *http.MaxBytesError
	switch {
	case errors.As(err, &maxBytes):
		return nil, apierr.BodyTooLarge(s.cfg.ServerMaxBodyBytes)
	case isTimeout(err):
		// The connection's read deadline (server-read-timeout) passed
		// mid-body: nothing else sets one on a request's reads.
		return nil, apierr.BodyTimeout(s.cfg.ServerReadTimeout.Seconds())
	case err != nil:
		return nil, apierr.InvalidBody("Request body unreadable", err.Error())
	}
	return body, nil
}

// readDeclared reads a body of n declared bytes, to its end: the server
// watches the connection for the client leaving only once the handler has
// seen the body's end (io.EOF), so the last read is one past the n bytes.
func readDeclared(r io.Reader, n int) ([]byte, error) {
	buf := make([]byte, 0, min(n, firstBodyBuffer))
	for {
		if len(buf) == cap(buf) && cap(buf) < n {
			grown := make([]byte, len(buf), min(2*cap(buf), n))
			copy(grown, buf)
			buf = grown
		}
		var m int
		var err error
		if len(buf) < cap(buf) {
			m, err = r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+m]
		} else {
			var past [1]byte
			if m, err = r.Read(past[:]); m > 0 {
				return nil, errors.New("body longer than its Content-Length")
			}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// isTimeout reports whether err is a read that ran past its deadline.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
