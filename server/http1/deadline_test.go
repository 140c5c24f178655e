package http1

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// deadlineConn records the read deadlines set on it.
type deadlineConn struct {
	net.Conn
	set []time.Time
}

func (c *deadlineConn) SetReadDeadline(t time.Time) error {
	c.set = append(c.set, t)
	return c.Conn.SetReadDeadline(t)
}

// TestReadDeadlineSlack proves readDeadlineAfter moves the read deadline
// only when the one in force falls outside [t+d, t+d+slack], and then to
// t+d+slack; that a deadline set by other means (the watcher's) is never
// mistaken for one in that span; and that a zero timeout clears it once.
func TestReadDeadlineSlack(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	dc := &deadlineConn{Conn: a}
	c := &conn{rwc: dc}
	const d = 60 * time.Second
	slack := deadlineSlack(d)
	if slack != time.Second {
		t.Fatalf("slack of %v: %v, want 1s", d, slack)
	}
	if s := deadlineSlack(160 * time.Millisecond); s != 10*time.Millisecond {
		t.Fatalf("slack of 160ms: %v, want 10ms", s)
	}
	t0 := time.Now()
	steps := []struct {
		name string
		at   time.Time
		d    time.Duration
		want time.Time // zero: left as it was
	}{
		{"first", t0, d, t0.Add(d + slack)},
		{"within the slack", t0.Add(slack / 2), d, time.Time{}},
		{"at the slack's end", t0.Add(slack), d, time.Time{}},
		{"past it", t0.Add(slack + time.Millisecond), d, t0.Add(slack + time.Millisecond + d + slack)},
		{"a shorter timeout", t0.Add(slack + time.Millisecond), d / 2, t0.Add(slack + time.Millisecond + d/2 + deadlineSlack(d/2))},
	}
	for _, s := range steps {
		n := len(dc.set)
		c.readDeadlineAfter(s.at, s.d)
		switch {
		case s.want.IsZero() && len(dc.set) != n:
			t.Errorf("%s: set %v, want the deadline left as it was", s.name, dc.set[n:])
		case !s.want.IsZero() && (len(dc.set) != n+1 || !dc.set[n].Equal(s.want)):
			t.Errorf("%s: set %v, want %v", s.name, dc.set[n:], s.want)
		}
	}

	// The watcher's deadline (aLongTimeAgo, then none) goes through
	// setReadDeadline, so the next wait sets its own.
	c.setReadDeadline(aLongTimeAgo)
	n := len(dc.set)
	c.readDeadlineAfter(time.Now(), d)
	if len(dc.set) != n+1 || !dc.set[n].After(time.Now()) {
		t.Errorf("after the watcher's deadline: set %v, want one in the future", dc.set[n:])
	}
	c.readDeadlineAfter(time.Now(), 0)
	c.readDeadlineAfter(time.Now(), 0)
	if got := dc.set[n+1:]; len(got) != 1 || !got[0].IsZero() {
		t.Errorf("two waits without a timeout: set %v, want the deadline cleared once", got)
	}
}

// countingListener hands out connections that count the read deadlines
// set on them, together in sets.
type countingListener struct {
	net.Listener
	sets *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, l.sets}, nil
}

type countingConn struct {
	net.Conn
	sets *atomic.Int64
}

func (c countingConn) SetReadDeadline(t time.Time) error {
	c.sets.Add(1)
	return c.Conn.SetReadDeadline(t)
}

// serveCounting serves an echo of each request's body on a loopback
// listener with the given timeouts, and returns a connection to it and
// the count of read deadlines set on the server's side.
func serveCounting(t *testing.T, read, idle time.Duration) (net.Conn, *bufio.Reader, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sets := &atomic.Int64{}
	s := &Server{ReadTimeout: read, IdleTimeout: idle, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Write(body)
	})}
	go s.Serve(countingListener{ln, sets})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c), sets
}

// post sends a POST with a body on c and reads the echo.
func post(c net.Conn, br *bufio.Reader, body string) error {
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		return err
	}
	resp, err := http.ReadResponse(br, &http.Request{Method: "POST"})
	if err != nil {
		return err
	}
	got, err := io.ReadAll(resp.Body)
	if err == nil && string(got) != body {
		err = fmt.Errorf("answer %q to body %q", got, body)
	}
	return err
}

// TestBodyRequestsKeepTheirDeadline proves that requests with a body, one
// after another on a connection, do not move its read deadline back and
// forth: each body's reads time out at the read timeout, each wait for
// the next request at the later idle timeout, and the deadline the body
// left serves the wait (waitDeadline) and the next body, within the
// slack, rather than being moved twice a request.
func TestBodyRequestsKeepTheirDeadline(t *testing.T) {
	c, br, sets := serveCounting(t, 60*time.Second, 120*time.Second)
	const requests = 50
	start := time.Now()
	for i := range requests {
		if err := post(c, br, fmt.Sprint("body ", i)); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	// The slack is a second: a request a second or more after the
	// deadline was set moves it once more.
	limit := 2 + int64(time.Since(start)/time.Second)
	if n := sets.Load(); n > limit {
		t.Errorf("%d requests with a body set the read deadline %d times, want at most %d", requests, n, limit)
	}
}

// TestIdleWaitOutlastsBodyDeadline proves that a connection idle past the
// read deadline its last request's body left is kept until the idle
// timeout: the wait moves the deadline when it reaches it, and still
// closes the connection once the idle timeout has passed.
func TestIdleWaitOutlastsBodyDeadline(t *testing.T) {
	const read = 100 * time.Millisecond
	c, br, _ := serveCounting(t, read, 2*time.Second)
	if err := post(c, br, "first"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * read)
	if err := post(c, br, "second"); err != nil {
		t.Fatalf("a request after %v idle, within the idle timeout: %v", 4*read, err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := br.Read(make([]byte, 1)); n != 0 || err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the idle connection: read %d bytes, %v; want it closed by the idle timeout", n, err)
	}
}
