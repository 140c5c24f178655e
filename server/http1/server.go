// Package http1 serves an http.Handler over HTTP/1.x with less work per
// request than net/http's server. It parses a plain request head itself,
// into exactly the request net/http's parser (http.ReadRequest) would
// make of it, and leaves every other head to that parser (head.go); it
// makes the same checks as net/http's server and answers the wire
// as net/http's server does as svc-serve runs it, behind framing.Server
// (conformance_test.go compares the two), but
// it does not start a goroutine per request to watch for the client going
// away: that watch begins only once a request has run for WatchAfter,
// where cancelling the request's database work is worth its cost; and a
// response's header and body leave in one write.
//
// Deliberate differences: cleartext HTTP/1.x only (no TLS, HTTP/2,
// Hijack, Flusher, trailers or 1xx answers from handlers); a HEAD answer
// declares the whole length GET would send; a request in absolute form
// needs no Host header. The request line is read as RFC 9112 says
// (requestline_test.go): an empty line before it is skipped, not only
// after a POST; and a target net/http serves is refused with 400 when it
// is "*" for a method other than OPTIONS, the authority form (CONNECT),
// an absolute URI of a scheme other than http and https, or holds a byte
// that is not ASCII. A client's leaving is watched for whatever it
// sent beyond its request (net/http stops watching once a byte more has
// come); a request cancelled that way which the handler leaves unanswered
// gets no answer, where net/http sends an empty 200; and a client that
// sends more than maxReadAhead while its request runs has the connection
// closed after the answer.
package http1

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// DefaultWatchAfter is how long a request runs before its connection is
// watched for the client going away.
const DefaultWatchAfter = 50 * time.Millisecond

// Server serves Handler on the listeners given to Serve. The timeouts
// mean what they mean for http.Server; zero is no limit.
type Server struct {
	Handler           http.Handler
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	// MaxHeaderBytes bounds the request line and headers; zero means
	// http.DefaultMaxHeaderBytes.
	MaxHeaderBytes int
	// WatchAfter is how long a request runs before its connection is
	// watched so that the client leaving cancels the request's context;
	// zero means DefaultWatchAfter.
	WatchAfter time.Duration
	// Log receives handler panics; nil discards them.
	Log *slog.Logger

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	closing   atomic.Bool // set under mu; read without it on every request
	wg        sync.WaitGroup
}

// Serve accepts connections on ln until Shutdown or an accept error. It
// returns http.ErrServerClosed after Shutdown, as http.Server does.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		return http.ErrServerClosed
	}
	s.init()
	s.listeners[ln] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
	}()
	var backoff time.Duration
	for {
		rwc, err := ln.Accept()
		if err != nil {
			if s.isClosing() {
				return http.ErrServerClosed
			}
			if temporaryAcceptError(err) {
				// Out of file descriptors and the like: wait and
				// retry rather than give up serving, as net/http does.
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		c := newConn(s, rwc)
		if !s.track(c) {
			rwc.Close()
			return http.ErrServerClosed
		}
		go c.serve()
	}
}

// Shutdown stops accepting, closes idle connections, and waits for those
// serving a request to finish it; when ctx ends first it closes them all
// and returns ctx's error.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.init()
	s.closing.Store(true)
	for ln := range s.listeners {
		ln.Close()
	}
	for c := range s.conns {
		c.closeIfIdle()
	}
	s.mu.Unlock()
	finished := make(chan struct{})
	go func() { s.wg.Wait(); close(finished) }()
	select {
	case <-finished:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		for c := range s.conns {
			c.rwc.Close()
		}
		s.mu.Unlock()
		return ctx.Err()
	}
}

// temporaryAcceptError reports whether accepting may succeed later: the
// process or system is out of descriptors or memory, or a client gave up
// before its connection was accepted.
func temporaryAcceptError(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}

func (s *Server) init() {
	if s.listeners == nil {
		s.listeners = map[net.Listener]struct{}{}
		s.conns = map[*conn]struct{}{}
	}
}

func (s *Server) isClosing() bool { return s.closing.Load() }

// track records c as open, unless the server is closing.
func (s *Server) track(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		return false
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	return true
}

func (s *Server) forget(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	s.wg.Done()
}

func (s *Server) maxHeaderBytes() int64 {
	if s.MaxHeaderBytes > 0 {
		return int64(s.MaxHeaderBytes)
	}
	return http.DefaultMaxHeaderBytes
}

func (s *Server) watchAfter() time.Duration {
	if s.WatchAfter > 0 {
		return s.WatchAfter
	}
	return DefaultWatchAfter
}

// New returns a Server with hs's handler, timeouts and header limit, so
// that configuration built for net/http serves here unchanged.
func New(hs *http.Server, log *slog.Logger) *Server {
	return &Server{Handler: hs.Handler, ReadHeaderTimeout: hs.ReadHeaderTimeout, ReadTimeout: hs.ReadTimeout,
		WriteTimeout: hs.WriteTimeout, IdleTimeout: hs.IdleTimeout, MaxHeaderBytes: hs.MaxHeaderBytes, Log: log}
}
