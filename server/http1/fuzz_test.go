package http1_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/http1"
)

// oneConnListener hands out one connection, then waits until closed.
type oneConnListener struct {
	conn   net.Conn
	once   sync.Once
	closed chan struct{}
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	var c net.Conn
	l.once.Do(func() { c = l.conn })
	if c != nil {
		return c, nil
	}
	<-l.closed
	return nil, errors.New("listener closed")
}

func (l *oneConnListener) Close() error {
	select {
	case <-l.closed:
	default:
		close(l.closed)
	}
	return nil
}

func (l *oneConnListener) Addr() net.Addr { return l.conn.LocalAddr() }

// FuzzServeConn feeds arbitrary bytes to a connection of an http1 server
// with the conformance handler: whatever arrives, the server must not
// panic, and the connection must end within its timeouts. The timeouts
// are short so that inputs which stall the connection fuzz quickly.
func FuzzServeConn(f *testing.F) {
	for _, c := range conformanceCases {
		f.Add([]byte(c.req))
	}
	for _, c := range requestLineCases {
		f.Add([]byte(c.req))
	}
	handler := conformanceHandler()
	f.Fuzz(func(t *testing.T, data []byte) {
		var logBuf lockedBuffer
		s := &http1.Server{Handler: handler, ReadHeaderTimeout: 50 * time.Millisecond,
			ReadTimeout: 100 * time.Millisecond, WriteTimeout: 100 * time.Millisecond,
			IdleTimeout: 50 * time.Millisecond, MaxHeaderBytes: 4096, WatchAfter: 10 * time.Millisecond,
			Log: slog.New(slog.NewTextHandler(&logBuf, nil))}
		client, server := net.Pipe()
		defer client.Close()
		ln := &oneConnListener{conn: server, closed: make(chan struct{})}
		served := make(chan error, 1)
		go func() { served <- s.Serve(ln) }()
		ended := make(chan struct{})
		go func() { io.Copy(io.Discard, client); close(ended) }()
		client.SetWriteDeadline(time.Now().Add(time.Second))
		client.Write(data) // the server may stop reading early

		// The server ends the connection itself: its timeouts bound every
		// wait, and Shutdown would cut short what is still being served.
		select {
		case <-ended:
		case <-time.After(5 * time.Second):
			t.Fatalf("the connection was still open 5 s after the input ended")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
		awaitServeClosed(t, served)
		if log := logBuf.String(); strings.Contains(log, "panic") {
			t.Fatalf("the server panicked on %q: %s", data, log)
		}
	})
}
