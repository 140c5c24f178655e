package http1_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/http1"
)

// holdHandler serves /hold, which signals holding and answers "done"
// once release is closed (or after 10 s), and the routes of testHandler.
// With cl, /hold queues its answer, with a Content-Length, before it
// waits.
func holdHandler(holding chan<- struct{}, release <-chan struct{}, cl bool) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", testHandler())
	mux.HandleFunc("/hold", func(w http.ResponseWriter, r *http.Request) {
		if cl {
			w.Header().Set("Content-Length", "4")
			io.WriteString(w, "done")
		}
		holding <- struct{}{}
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		if !cl {
			time.Sleep(300 * time.Millisecond)
			io.WriteString(w, "done")
		}
	})
	return mux
}

// waitListenerClosed waits until dialing addr fails, which it does once
// Shutdown has begun.
func waitListenerClosed(t *testing.T, addr string) {
	t.Helper()
	for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(10 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return
		}
		c.Close()
	}
	t.Fatalf("new connections are still accepted 5 s into Shutdown")
}

// shutdownInBackground starts s.Shutdown with 10 s to finish and returns
// where its result arrives.
func shutdownInBackground(s *http1.Server) <-chan error {
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		shut <- s.Shutdown(ctx)
	}()
	return shut
}

// idleAndHeld opens two connections to a holdHandler server at addr: one
// idle after an answered request, one whose /hold request is in flight.
func idleAndHeld(t *testing.T, addr string, holding <-chan struct{}) (idle, held *clientConn) {
	t.Helper()
	idle = newClientConn(t, addr)
	idle.write("GET /cl HTTP/1.1\r\nHost: a\r\n\r\n")
	idle.mustRead("GET")
	held = newClientConn(t, addr)
	held.write("GET /hold HTTP/1.1\r\nHost: a\r\n\r\n")
	<-holding
	return idle, held
}

// TestShutdown proves Shutdown closes idle connections, stops accepting, and waits for an in-flight request, answered with close.
func TestShutdown(t *testing.T) {
	holding, release := make(chan struct{}, 1), make(chan struct{})
	s := &http1.Server{Handler: holdHandler(holding, release, false)}
	addr, served := startHTTP1(t, s)

	idle, active := idleAndHeld(t, addr, holding)

	shut := shutdownInBackground(s)
	if _, rest, closed := idle.waitClosed(5 * time.Second); !closed || len(rest) > 0 {
		t.Fatalf("idle connection: closed=%v, got %q; want closed at once", closed, rest)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatalf("a new connection was accepted during Shutdown")
	}
	awaitServeClosed(t, served)
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v while a request was in flight", err)
	default:
	}

	close(release)
	select {
	case err := <-shut:
		if err != nil {
			t.Fatalf("Shutdown returned %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Shutdown did not return")
	}
	resp, body, err := active.read("GET")
	if err != nil || resp.StatusCode != http.StatusOK || body != "done" || !resp.Close {
		t.Fatalf("in-flight request: err %v, body %q; want 200 \"done\" with Connection: close", err, body)
	}
	if _, rest, closed := active.waitClosed(5 * time.Second); !closed || len(rest) > 0 {
		t.Fatalf("in-flight connection after its answer: closed=%v, got %q", closed, rest)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatalf("a new connection was accepted after Shutdown")
	}
}

// TestShutdownExpiredContext proves Shutdown with an expired context returns DeadlineExceeded and closes every connection.
func TestShutdownExpiredContext(t *testing.T) {
	holding, release := make(chan struct{}, 1), make(chan struct{})
	s := &http1.Server{Handler: holdHandler(holding, release, false)}
	addr, _ := startHTTP1(t, s)
	t.Cleanup(func() { close(release) })

	idle, active := idleAndHeld(t, addr, holding)

	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	if err := s.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown returned %v, want context.DeadlineExceeded", err)
	}
	for name, cc := range map[string]*clientConn{"idle": idle, "busy": active} {
		if _, rest, closed := cc.waitClosed(5 * time.Second); !closed || len(rest) > 0 {
			t.Errorf("%s connection: closed=%v, got %q; want closed", name, closed, rest)
		}
	}
}

// TestShutdownDeliversHeldResponse proves Shutdown does not drop an answer queued before it behind a pipelined request.
func TestShutdownDeliversHeldResponse(t *testing.T) {
	// net/http delivers such an answer and then closes.
	holding, release := make(chan struct{}, 1), make(chan struct{})
	s := &http1.Server{Handler: holdHandler(holding, release, true)}
	addr, _ := startHTTP1(t, s)

	cc := newClientConn(t, addr)
	cc.write("GET /hold HTTP/1.1\r\nHost: a\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n")
	<-holding
	shut := shutdownInBackground(s)
	waitListenerClosed(t, addr)
	close(release)
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown returned %v", err)
	}
	resp, body, err := cc.read("GET")
	if err != nil || resp.StatusCode != http.StatusOK || body != "done" {
		t.Fatalf("answer given before Shutdown: err %v, body %q; want 200 \"done\"", err, body)
	}
}

// exhaustedListener fails its first accepts as a process out of file
// descriptors does, then accepts normally.
type exhaustedListener struct {
	net.Listener
	failures atomic.Int32
}

func (l *exhaustedListener) Accept() (net.Conn, error) {
	if l.failures.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// TestServeRetriesTemporaryAcceptErrors proves Serve waits and accepts
// again after EMFILE rather than returning, as net/http's server does.
func TestServeRetriesTemporaryAcceptErrors(t *testing.T) {
	ln := &exhaustedListener{Listener: listen(t)}
	ln.failures.Store(3)
	s := &http1.Server{Handler: testHandler()}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	cc := newClientConn(t, ln.Addr().String())
	cc.write("GET /cl HTTP/1.1\r\nHost: a\r\n\r\n")
	if resp, body := cc.mustRead("GET"); resp.StatusCode != http.StatusOK || body != "hello" {
		t.Fatalf("after EMFILE: got %q %q, want 200 hello", resp.Status, body)
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v after a temporary accept error", err)
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.Shutdown(ctx)
	awaitServeClosed(t, served)
}
