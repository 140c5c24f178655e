package http1_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/http1"
)

// blockingHandler serves /block, which waits up to 5 s for its context
// to end, then reports the context's error on results and, for
// /block?answer, writes a status; it writes nothing otherwise.
func blockingHandler(started chan<- struct{}, results chan<- error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		results <- r.Context().Err()
		if r.URL.Query().Has("answer") {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
}

// TestClientGoneGetsNoAnswer proves a request cancelled because its client left, which the handler leaves unanswered, gets no answer at all, where net/http sends 200.
func TestClientGoneGetsNoAnswer(t *testing.T) {
	started, results := make(chan struct{}, 1), make(chan error, 1)
	addr, _ := startHTTP1(t, &http1.Server{Handler: blockingHandler(started, results), WatchAfter: 20 * time.Millisecond})

	cc := newClientConn(t, addr)
	cc.write("GET /block HTTP/1.1\r\nHost: a\r\n\r\n")
	<-started
	cc.c.(*net.TCPConn).CloseWrite()
	if err := <-results; !errors.Is(err, context.Canceled) {
		t.Fatalf("context error %v after the client half-closed, want context.Canceled", err)
	}
	if _, rest, closed := cc.waitClosed(5 * time.Second); !closed || len(rest) > 0 {
		t.Fatalf("after the client left: closed=%v, got %q; want no answer and the connection closed", closed, rest)
	}

	// A status the handler chose is its answer, and is sent.
	cc = newClientConn(t, addr)
	cc.write("GET /block?answer HTTP/1.1\r\nHost: a\r\n\r\n")
	<-started
	cc.c.(*net.TCPConn).CloseWrite()
	<-results
	if resp, _ := cc.mustRead("GET"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("the handler's answer after the client left: %q, want 503", resp.Status)
	}
}

// TestWatcherSeesLeaveWithBytesAhead proves the client leaving cancels the request whatever it sent beyond it: bytes buffered already, a pipelined request, bytes that came while the request ran, more than the watcher keeps.
func TestWatcherSeesLeaveWithBytesAhead(t *testing.T) {
	started, results := make(chan struct{}, 1), make(chan error, 1)
	addr, _ := startHTTP1(t, &http1.Server{Handler: blockingHandler(started, results), WatchAfter: 20 * time.Millisecond})
	const req = "GET /block HTTP/1.1\r\nHost: a\r\n\r\n"
	cases := []struct {
		name string
		send func(cc *clientConn)
	}{
		{"one byte ahead", func(cc *clientConn) { cc.write(req + "G"); <-started }},
		{"a pipelined request ahead", func(cc *clientConn) { cc.write(req + "GET /x HTTP/1.1\r\nHost: a\r\n\r\n"); <-started }},
		{"bytes while it runs", func(cc *clientConn) {
			cc.write(req)
			<-started
			for range 3 {
				time.Sleep(50 * time.Millisecond)
				cc.write("G")
			}
		}},
		{"more than the watcher keeps", func(cc *clientConn) {
			cc.write(req)
			<-started
			time.Sleep(50 * time.Millisecond)
			cc.write(strings.Repeat("x", 300<<10))
		}},
	}
	for _, tc := range cases {
		for _, leave := range []string{"close", "half-close"} {
			cc := newClientConn(t, addr)
			tc.send(cc)
			start := time.Now()
			if leave == "close" {
				cc.c.Close()
			} else {
				cc.c.(*net.TCPConn).CloseWrite()
			}
			select {
			case err := <-results:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("%s, then %s: context error %v, want context.Canceled", tc.name, leave, err)
				} else if d := time.Since(start); d > 2*time.Second {
					t.Errorf("%s, then %s: cancelled %v after the client left", tc.name, leave, d)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s, then %s: the handler did not finish", tc.name, leave)
			}
		}
	}
}

// TestWatcherOverflowClosesAfterAnswer proves a client sending more than the watcher keeps while its request runs gets its answer, marked close, and the connection then closes.
func TestWatcherOverflowClosesAfterAnswer(t *testing.T) {
	release := make(chan struct{})
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		fmt.Fprintf(w, "ctx=%v", r.Context().Err())
	})
	addr, _ := startHTTP1(t, &http1.Server{Handler: handler, WatchAfter: 10 * time.Millisecond})
	cc := newClientConn(t, addr)
	cc.write("GET /wait HTTP/1.1\r\nHost: a\r\n\r\n")
	time.Sleep(50 * time.Millisecond)
	cc.write(strings.Repeat("GET /cl HTTP/1.1\r\nHost: a\r\n\r\n", 4000)) // 124 KB
	time.Sleep(100 * time.Millisecond)
	close(release)
	resp, body := cc.mustRead("GET")
	if body != "ctx=<nil>" || !resp.Close {
		t.Fatalf("got %q close=%v, want the answer, uncancelled, marked close", body, resp.Close)
	}
	if _, _, closed := cc.waitClosed(5 * time.Second); !closed {
		t.Fatal("the connection stayed open after the read-ahead overflowed")
	}
}

// TestWatcherKeepsSplitRequest proves a pipelined request split between the bytes buffered when the watch begins and the bytes the watcher reads arrives whole and in order.
func TestWatcherKeepsSplitRequest(t *testing.T) {
	addr, _ := startHTTP1(t, &http1.Server{Handler: testHandler(), WatchAfter: 10 * time.Millisecond})
	cc := newClientConn(t, addr)
	for i := range 10 {
		posted := fmt.Sprintf("posted %d %s", i, strings.Repeat("p", 3000*i))
		next := fmt.Sprintf("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n\r\n%s", len(posted), posted)
		cut := len(next) / 2
		cc.write(fmt.Sprintf("GET /slow?%d HTTP/1.1\r\nHost: a\r\n\r\n", i) + next[:cut])
		time.Sleep(40 * time.Millisecond)
		cc.write(next[cut:])
		if _, body := cc.mustRead("GET"); body != fmt.Sprintf("slow %d ctx=<nil>", i) {
			t.Fatalf("round %d, slow request: %q", i, body)
		}
		if resp, body := cc.mustRead("POST"); body != posted || resp.Close {
			t.Fatalf("round %d, split request: %d bytes close=%v, want %d bytes kept alive", i, len(body), resp.Close, len(posted))
		}
	}
}

// leaveHook is what a request's context offers beside ending: a function
// run when the client leaves (package dbexec uses it).
type leaveHook interface {
	OnLeave(f func())
	StopLeave() bool
}

// TestOnLeave proves the function a request registers with its context's
// OnLeave runs when the client leaves, at once when it has left already,
// and not at all once stopped or once the request has ended.
func TestOnLeave(t *testing.T) {
	left := make(chan string, 4)
	stopped := make(chan bool, 1)
	started := make(chan struct{}, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hook, ok := r.Context().(leaveHook)
		if !ok {
			t.Errorf("the request's context %T has no OnLeave", r.Context())
			return
		}
		switch r.URL.Path {
		case "/leave":
			hook.OnLeave(func() { left <- "leave" })
			started <- struct{}{}
			<-r.Context().Done()
		case "/late":
			started <- struct{}{}
			<-r.Context().Done()
			hook.OnLeave(func() { left <- "late" })
		case "/stop":
			hook.OnLeave(func() { left <- "stop" })
			stopped <- hook.StopLeave()
		case "/ended":
			hook.OnLeave(func() { left <- "ended" })
		case "/wait":
			started <- struct{}{}
			<-r.Context().Done()
		}
	})
	addr, _ := startHTTP1(t, &http1.Server{Handler: h, WatchAfter: 20 * time.Millisecond})

	for _, path := range []string{"/leave", "/late"} {
		cc := newClientConn(t, addr)
		cc.write("GET " + path + " HTTP/1.1\r\nHost: a\r\n\r\n")
		<-started
		cc.c.(*net.TCPConn).CloseWrite()
		select {
		case got := <-left:
			if got != path[1:] {
				t.Errorf("%s: %q ran", path, got)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%s: nothing ran 5 s after the client left", path)
		}
	}

	// Stopped, or still registered when its request ended: the client
	// leaving during the next request runs nothing.
	cc := newClientConn(t, addr)
	cc.write("GET /stop HTTP/1.1\r\nHost: a\r\n\r\nGET /ended HTTP/1.1\r\nHost: a\r\n\r\n")
	if !<-stopped {
		t.Error("StopLeave of a registered function reported false")
	}
	cc.mustRead("GET")
	cc.mustRead("GET")
	cc.write("GET /wait HTTP/1.1\r\nHost: a\r\n\r\n")
	<-started
	cc.c.(*net.TCPConn).CloseWrite()
	cc.waitClosed(5 * time.Second)
	select {
	case got := <-left:
		t.Errorf("%q ran after its request had stopped it or ended", got)
	case <-time.After(100 * time.Millisecond):
	}
}
