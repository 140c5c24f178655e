package http1_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/framing"
	"github.com/svc-dev/svc/server/http1"
)

// listen opens a loopback listener on a free port.
func listen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// startHTTP1 serves s on a fresh loopback listener and returns its
// address and a channel receiving Serve's result. Cleanup shuts s down
// and, unless the test already read the channel, checks that Serve
// returned http.ErrServerClosed.
func startHTTP1(t testing.TB, s *http1.Server) (string, <-chan error) {
	t.Helper()
	ln := listen(t)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln); close(served) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		awaitServeClosed(t, served)
	})
	return ln.Addr().String(), served
}

// awaitServeClosed waits up to 5 s for Serve's result on served and
// reports an error unless it is http.ErrServerClosed. A closed channel
// means the test has read the result already.
func awaitServeClosed(t testing.TB, served <-chan error) {
	t.Helper()
	select {
	case err, ok := <-served:
		if ok && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("Serve did not return after Shutdown")
	}
}

// startNetHTTP serves s (net/http's server) on a fresh loopback
// listener, as svc-serve runs it: behind framing.Server, which closes a
// connection after a request framed two ways.
func startNetHTTP(t testing.TB, s *http.Server) string {
	t.Helper()
	ln := listen(t)
	if s.ErrorLog == nil {
		s.ErrorLog = log.New(io.Discard, "", 0)
	}
	go framing.NewServer(s).Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			s.Close()
		}
	})
	return ln.Addr().String()
}

// dial connects to addr and closes the connection at cleanup.
func dial(t testing.TB, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// clientConn is a raw client connection that reads responses.
type clientConn struct {
	t  testing.TB
	c  net.Conn
	br *bufio.Reader
}

func newClientConn(t testing.TB, addr string) *clientConn {
	c := dial(t, addr)
	return &clientConn{t: t, c: c, br: bufio.NewReader(c)}
}

// write sends s, failing the test on error.
func (cc *clientConn) write(s string) {
	cc.t.Helper()
	cc.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(cc.c, s); err != nil {
		cc.t.Fatalf("write: %v", err)
	}
}

// read reads one response to a request with the given method, and its
// body, within 5 s.
func (cc *clientConn) read(method string) (*http.Response, string, error) {
	cc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(cc.br, &http.Request{Method: method})
	if err != nil {
		return nil, "", err
	}
	body, err := io.ReadAll(resp.Body)
	return resp, string(body), err
}

// mustRead is read that fails the test on error.
func (cc *clientConn) mustRead(method string) (*http.Response, string) {
	cc.t.Helper()
	resp, body, err := cc.read(method)
	if err != nil {
		cc.t.Fatalf("reading response: %v", err)
	}
	return resp, body
}

// waitClosed waits up to limit for the server to close the connection
// and returns how long it took and the bytes that came before the end.
func (cc *clientConn) waitClosed(limit time.Duration) (time.Duration, []byte, bool) {
	start := time.Now()
	cc.c.SetReadDeadline(start.Add(limit))
	got, err := io.ReadAll(cc.br)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return time.Since(start), got, false
	}
	return time.Since(start), got, true
}

// lockedBuffer is a bytes.Buffer safe for a logger and a test to share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// forBoth runs test as subtest "nethttp" against net/http's server
// made by newServer, and as subtest "http1" against http1.New of it, so
// that each expectation is shown to be net/http's behaviour too.
func forBoth(t *testing.T, newServer func() *http.Server, test func(t *testing.T, addr string)) {
	t.Run("nethttp", func(t *testing.T) {
		t.Parallel()
		test(t, startNetHTTP(t, newServer()))
	})
	t.Run("http1", func(t *testing.T) {
		t.Parallel()
		addr, _ := startHTTP1(t, http1.New(newServer(), nil))
		test(t, addr)
	})
}
