package http1_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/http1"
)

// testHandler serves the routes of the behaviour tests.
func testHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Write(b)
	})
	mux.HandleFunc("/cl", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5")
		io.WriteString(w, "hello")
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(100 * time.Millisecond)
		fmt.Fprintf(w, "slow %s ctx=%v", r.URL.RawQuery, r.Context().Err())
	})
	mux.HandleFunc("/large", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("cl") {
			w.Header().Set("Content-Length", fmt.Sprint(len(largeBody)))
		}
		for b := largeBody; len(b) > 0; b = b[64<<10:] {
			w.Write(b[:64<<10])
		}
	})
	return mux
}

// largeBody is a 1 MiB body with a pattern that shows misplaced bytes.
var largeBody = func() []byte {
	b := make([]byte, 1<<20)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}()

// TestExpectContinue proves 100 Continue is sent only when the handler reads the body, else the answer says close and the connection closes.
func TestExpectContinue(t *testing.T) {
	forBoth(t, func() *http.Server { return &http.Server{Handler: testHandler()} }, func(t *testing.T, addr string) {
		cc := newClientConn(t, addr)
		cc.write("POST /echo HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
		resp, _ := cc.mustRead("POST")
		if resp.StatusCode != http.StatusContinue {
			t.Fatalf("first response %q, want 100 Continue", resp.Status)
		}
		cc.write("hello")
		resp, body := cc.mustRead("POST")
		if resp.StatusCode != http.StatusOK || body != "hello" || resp.Close {
			t.Fatalf("got %q %q close=%v, want 200 \"hello\" kept alive", resp.Status, body, resp.Close)
		}
		cc.write("GET /cl HTTP/1.1\r\nHost: a\r\n\r\n")
		if resp, body := cc.mustRead("GET"); resp.StatusCode != http.StatusOK || body != "hello" {
			t.Fatalf("next request got %q %q", resp.Status, body)
		}

		// The handler answers without reading: no 100, and close.
		for _, target := range []string{"/nowhere", "/cl"} {
			cc := newClientConn(t, addr)
			cc.write("POST " + target + " HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
			resp, _ := cc.mustRead("POST")
			if resp.StatusCode == http.StatusContinue || !resp.Close {
				t.Errorf("%s: got %q close=%v; want the final answer with Connection: close", target, resp.Status, resp.Close)
			}
		}
	})
	// net/http then waits for the body it did not ask for; http1 closes.
	t.Run("http1 closes", func(t *testing.T) {
		addr, _ := startHTTP1(t, &http1.Server{Handler: testHandler()})
		cc := newClientConn(t, addr)
		cc.write("POST /nowhere HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
		if resp, _ := cc.mustRead("POST"); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("got %q, want the handler's 404", resp.Status)
		}
		if _, rest, closed := cc.waitClosed(5 * time.Second); !closed || len(rest) > 0 {
			t.Errorf("after the response: closed=%v, more bytes %q; want closed, nothing more", closed, rest)
		}
	})
}

// TestReadHeaderTimeout proves a client stalling in its header is cut off after ReadHeaderTimeout, answered as net/http answers it.
func TestReadHeaderTimeout(t *testing.T) {
	// net/http answers 400 to a cut request line (the parser sees a bad
	// line) and nothing to a cut header block.
	const timeout = 200 * time.Millisecond
	check := func(t *testing.T, cc *clientConn, start time.Time, wantAnswer string) {
		_, rest, closed := cc.waitClosed(5 * time.Second)
		elapsed := time.Since(start)
		t.Logf("closed after %v (ReadHeaderTimeout %v)", elapsed, timeout)
		if !closed {
			t.Fatalf("connection still open after 5 s")
		}
		if elapsed < 150*time.Millisecond || elapsed > 2*time.Second {
			t.Errorf("closed after %v, want about %v", elapsed, timeout)
		}
		if !strings.HasPrefix(string(rest), wantAnswer) || (wantAnswer == "") != (len(rest) == 0) {
			t.Errorf("got %q before the close, want %q", rest, wantAnswer)
		}
	}
	forBoth(t, func() *http.Server { return &http.Server{Handler: testHandler(), ReadHeaderTimeout: timeout} }, func(t *testing.T, addr string) {
		for _, tc := range []struct{ stall, answer string }{
			{"GET /cl HT", "HTTP/1.1 400 Bad Request\r\n"},
			{"GET /cl HTTP/1.1\r\nHost: a\r\n", ""},
		} {
			start := time.Now()
			cc := newClientConn(t, addr)
			cc.write(tc.stall)
			check(t, cc, start, tc.answer)

			cc = newClientConn(t, addr)
			cc.write("GET /cl HTTP/1.1\r\nHost: a\r\n\r\n")
			cc.mustRead("GET")
			time.Sleep(300 * time.Millisecond) // idle: no timeout applies
			start = time.Now()
			cc.write(tc.stall)
			check(t, cc, start, tc.answer)
		}
	})
}

// TestIdleTimeout proves an idle keep-alive connection is closed after IdleTimeout.
func TestIdleTimeout(t *testing.T) {
	const timeout = 200 * time.Millisecond
	addr, _ := startHTTP1(t, &http1.Server{Handler: testHandler(), IdleTimeout: timeout})
	cc := newClientConn(t, addr)
	cc.write("GET /cl HTTP/1.1\r\nHost: a\r\n\r\n")
	if resp, _ := cc.mustRead("GET"); resp.Close {
		t.Fatalf("response says Connection: close; want keep-alive")
	}
	d, rest, closed := cc.waitClosed(5 * time.Second)
	t.Logf("idle connection closed after %v (IdleTimeout %v)", d, timeout)
	if !closed || len(rest) > 0 || d < 150*time.Millisecond || d > 2*time.Second {
		t.Fatalf("closed=%v after %v with %q; want closed after about %v, silently", closed, d, rest, timeout)
	}
}

// TestIdleTimeoutEndsWithNextRequest proves IdleTimeout stops counting once the next request begins, as in net/http.
func TestIdleTimeoutEndsWithNextRequest(t *testing.T) {
	forBoth(t, func() *http.Server { return &http.Server{Handler: testHandler(), IdleTimeout: time.Second} }, func(t *testing.T, addr string) {
		cc := newClientConn(t, addr)
		cc.write("GET /cl HTTP/1.1\r\nHost: a\r\n\r\n")
		cc.mustRead("GET")
		time.Sleep(300 * time.Millisecond)
		cc.write("GET /cl HTTP/1.1\r\n")
		time.Sleep(1200 * time.Millisecond) // past the idle deadline
		cc.write("Host: a\r\n\r\n")
		resp, body, err := cc.read("GET")
		if err != nil || resp.StatusCode != http.StatusOK || body != "hello" {
			t.Fatalf("request whose header outlasted the idle deadline: %v; want 200 \"hello\"", err)
		}
	})
}

// TestSlowRequestOutlastsIdleTimeout proves a bodyless request that runs
// past IdleTimeout is answered, and its connection carries the next
// request, whole or begun during the slow one, as in net/http: the idle
// deadline set before a request is not the request's.
func TestSlowRequestOutlastsIdleTimeout(t *testing.T) {
	forBoth(t, func() *http.Server { return &http.Server{Handler: testHandler(), IdleTimeout: 40 * time.Millisecond} }, func(t *testing.T, addr string) {
		cc := newClientConn(t, addr)
		cc.write("GET /slow?a HTTP/1.1\r\nHost: a\r\n\r\n")
		if resp, body := cc.mustRead("GET"); resp.StatusCode != http.StatusOK || body != "slow a ctx=<nil>" {
			t.Fatalf("slow request: %q %q", resp.Status, body)
		}
		cc.write("GET /slow?b HTTP/1.1\r\nHost: a\r\n\r\nGET /cl HTTP/1.1\r\n")
		if resp, body := cc.mustRead("GET"); resp.StatusCode != http.StatusOK || body != "slow b ctx=<nil>" {
			t.Fatalf("slow request with the next begun: %q %q", resp.Status, body)
		}
		cc.write("Host: a\r\n\r\n")
		if resp, body := cc.mustRead("GET"); resp.StatusCode != http.StatusOK || body != "hello" {
			t.Fatalf("request after the slow one: %q %q", resp.Status, body)
		}
	})
}

// TestWriteTimeout proves requests still work with WriteTimeout set, also 1 MiB answers and after idling past it.
func TestWriteTimeout(t *testing.T) {
	addr, _ := startHTTP1(t, &http1.Server{Handler: testHandler(), WriteTimeout: time.Second})
	cc := newClientConn(t, addr)
	cc.write("GET /cl HTTP/1.1\r\nHost: a\r\n\r\n")
	if resp, body := cc.mustRead("GET"); resp.StatusCode != http.StatusOK || body != "hello" {
		t.Fatalf("got %q %q", resp.Status, body)
	}
	time.Sleep(1300 * time.Millisecond)
	cc.write("GET /large?cl HTTP/1.1\r\nHost: a\r\n\r\n")
	if resp, body := cc.mustRead("GET"); resp.StatusCode != http.StatusOK || body != string(largeBody) {
		t.Fatalf("after idling past WriteTimeout got %q with %d body bytes", resp.Status, len(body))
	}
}

// TestLargeResponse proves a 1 MiB body arrives intact, with Content-Length and chunked.
func TestLargeResponse(t *testing.T) {
	addr, _ := startHTTP1(t, &http1.Server{Handler: testHandler()})
	cc := newClientConn(t, addr)
	for _, tc := range []struct {
		target  string
		chunked bool
	}{{"/large?cl", false}, {"/large", true}, {"/large?cl", false}} {
		cc.write("GET " + tc.target + " HTTP/1.1\r\nHost: a\r\n\r\n")
		resp, body := cc.mustRead("GET")
		chunked := len(resp.TransferEncoding) > 0
		if resp.StatusCode != http.StatusOK || chunked != tc.chunked || !bytes.Equal([]byte(body), largeBody) {
			t.Fatalf("%s: got %q chunked=%v length %d, want 200 chunked=%v with the 1 MiB body intact",
				tc.target, resp.Status, chunked, len(body), tc.chunked)
		}
		if !tc.chunked && resp.ContentLength != int64(len(largeBody)) {
			t.Fatalf("%s: Content-Length %d, want %d", tc.target, resp.ContentLength, len(largeBody))
		}
	}
}

// writeGetOrPost sends request i of a run that alternates GET /cl and a
// POST /echo of posted, and returns the body its answer must carry.
func writeGetOrPost(cc *clientConn, i int, posted string) string {
	if i%2 == 0 {
		cc.write("GET /cl HTTP/1.1\r\nHost: a\r\n\r\n")
		return "hello"
	}
	cc.write(fmt.Sprintf("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n\r\n%s", len(posted), posted))
	return posted
}

// TestManyKeepAliveRequests proves 1000 sequential GETs and POSTs are all served on one connection.
func TestManyKeepAliveRequests(t *testing.T) {
	addr, _ := startHTTP1(t, &http1.Server{Handler: testHandler()})
	cc := newClientConn(t, addr)
	for i := range 1000 {
		want := writeGetOrPost(cc, i, fmt.Sprintf("body-%d", i))
		resp, body, err := cc.read("GET")
		if err != nil || resp.StatusCode != http.StatusOK || body != want || resp.Close {
			t.Fatalf("request %d: err %v, body %q; want 200 %q kept alive", i, err, body, want)
		}
	}
}

// TestWatcherKeepsPipelinedBytes proves the client-gone watch neither eats nor reorders pipelined bytes, nor cancels the slow request.
func TestWatcherKeepsPipelinedBytes(t *testing.T) {
	addr, _ := startHTTP1(t, &http1.Server{Handler: testHandler(), WatchAfter: 10 * time.Millisecond})
	cc := newClientConn(t, addr)
	for i := range 20 {
		cc.write(fmt.Sprintf("GET /slow?%d HTTP/1.1\r\nHost: a\r\n\r\n", i))
		time.Sleep(50 * time.Millisecond)
		want := writeGetOrPost(cc, i, fmt.Sprintf("posted %d", i))
		resp, body, err := cc.read("GET")
		if wantSlow := fmt.Sprintf("slow %d ctx=<nil>", i); err != nil || resp.StatusCode != http.StatusOK || body != wantSlow {
			t.Fatalf("round %d, slow request: err %v, body %q; want %q", i, err, body, wantSlow)
		}
		resp, body, err = cc.read("GET")
		if err != nil || resp.StatusCode != http.StatusOK || body != want {
			t.Fatalf("round %d, pipelined request: err %v, body %q; want %q", i, err, body, want)
		}
	}
}

// TestHandlerPanic proves a panic closes the connection and is logged (http.ErrAbortHandler is not), and serving goes on.
func TestHandlerPanic(t *testing.T) {
	var logBuf lockedBuffer
	mux := http.NewServeMux()
	mux.Handle("/", testHandler())
	mux.HandleFunc("/panic", func(http.ResponseWriter, *http.Request) { panic("boom-7781") })
	mux.HandleFunc("/abort", func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) })
	addr, _ := startHTTP1(t, &http1.Server{Handler: mux, Log: slog.New(slog.NewTextHandler(&logBuf, nil))})

	cc := newClientConn(t, addr)
	cc.write("GET /panic HTTP/1.1\r\nHost: a\r\n\r\n")
	if _, rest, closed := cc.waitClosed(5 * time.Second); !closed || len(rest) > 0 {
		t.Fatalf("after a panic: closed=%v, got %q; want the connection closed", closed, rest)
	}
	if !strings.Contains(logBuf.String(), "boom-7781") {
		t.Fatalf("log %q does not hold the panic value", logBuf.String())
	}
	logged := logBuf.String()

	cc = newClientConn(t, addr)
	cc.write("GET /abort HTTP/1.1\r\nHost: a\r\n\r\n")
	if _, rest, closed := cc.waitClosed(5 * time.Second); !closed || len(rest) > 0 {
		t.Fatalf("after ErrAbortHandler: closed=%v, got %q; want the connection closed", closed, rest)
	}

	cc = newClientConn(t, addr)
	cc.write("GET /cl HTTP/1.1\r\nHost: a\r\n\r\n")
	if resp, body := cc.mustRead("GET"); resp.StatusCode != http.StatusOK || body != "hello" {
		t.Fatalf("after the panics got %q %q, want 200", resp.Status, body)
	}
	if now := logBuf.String(); now != logged {
		t.Fatalf("http.ErrAbortHandler was logged: %q", strings.TrimPrefix(now, logged))
	}
}

// TestClientGone proves a request's context is cancelled when its client leaves, not while it stays, and once the handler returns.
func TestClientGone(t *testing.T) {
	results := make(chan error, 1)
	started := make(chan struct{}, 1)
	contexts := make(chan context.Context, 1)
	wait := func(w http.ResponseWriter, r *http.Request, limit time.Duration) {
		started <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-time.After(limit):
		}
		results <- r.Context().Err()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/block", func(w http.ResponseWriter, r *http.Request) { wait(w, r, 5*time.Second) })
	mux.HandleFunc("/blockbody", func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		wait(w, r, 5*time.Second)
	})
	mux.HandleFunc("/hold", func(w http.ResponseWriter, r *http.Request) { wait(w, r, 300*time.Millisecond) })
	mux.HandleFunc("/quick", func(w http.ResponseWriter, r *http.Request) {
		contexts <- r.Context()
		io.WriteString(w, "quick")
	})
	addr, _ := startHTTP1(t, &http1.Server{Handler: mux, WatchAfter: 20 * time.Millisecond})

	for _, req := range []string{
		"GET /block HTTP/1.1\r\nHost: a\r\n\r\n",
		"POST /blockbody HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc",
		"POST /blockbody HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
	} {
		cc := newClientConn(t, addr)
		cc.write(req)
		<-started
		start := time.Now()
		cc.c.Close()
		select {
		case err := <-results:
			t.Logf("%q: context ended %v after the client left: %v", strings.Fields(req)[1], time.Since(start), err)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%q: handler's context error %v, want context.Canceled", req, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q: handler did not finish", req)
		}
	}

	cc := newClientConn(t, addr)
	cc.write("GET /hold HTTP/1.1\r\nHost: a\r\n\r\n")
	<-started
	if err := <-results; err != nil {
		t.Errorf("context of a request whose client stays: %v, want not done", err)
	}
	cc.mustRead("GET")

	cc.write("GET /quick HTTP/1.1\r\nHost: a\r\n\r\n")
	if resp, body := cc.mustRead("GET"); body != "quick" {
		t.Fatalf("got %q %q", resp.Status, body)
	}
	select {
	case <-(<-contexts).Done():
	case <-time.After(2 * time.Second):
		t.Fatalf("context of a finished request is not done")
	}
}

// TestClientGoneAfterQuickRequests: the watch timer outlives the quick
// requests of a connection (it is neither stopped nor reset by them), yet
// a slow request that follows them, whether the timer fired in the
// request or rested while the connection was idle, is still watched: its
// client leaving ends its context.
func TestClientGoneAfterQuickRequests(t *testing.T) {
	results := make(chan error, 1)
	started := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/block", func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		results <- r.Context().Err()
	})
	mux.HandleFunc("/quick", func(w http.ResponseWriter, r *http.Request) {
		if err := r.Context().Err(); err != nil {
			t.Errorf("quick request's context: %v", err)
		}
		io.WriteString(w, "quick")
	})
	const watchAfter = 20 * time.Millisecond
	addr, _ := startHTTP1(t, &http1.Server{Handler: mux, WatchAfter: watchAfter})
	for _, idle := range []time.Duration{0, 3 * watchAfter} {
		cc := newClientConn(t, addr)
		// Quick requests for several watch periods: the timer fires
		// among them and finds each young.
		for end := time.Now().Add(4 * watchAfter); time.Now().Before(end); time.Sleep(time.Millisecond) {
			cc.write("GET /quick HTTP/1.1\r\nHost: a\r\n\r\n")
			if resp, body := cc.mustRead("GET"); body != "quick" {
				t.Fatalf("got %q %q", resp.Status, body)
			}
		}
		time.Sleep(idle)
		cc.write("GET /block HTTP/1.1\r\nHost: a\r\n\r\n")
		<-started
		cc.c.Close()
		select {
		case err := <-results:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("idle %v before the slow request: its context error %v, want context.Canceled", idle, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("idle %v before the slow request: the handler did not finish", idle)
		}
	}
}

// TestNew proves New carries over an http.Server's handler, limits, timeouts and the logger.
func TestNew(t *testing.T) {
	h := testHandler()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s := http1.New(&http.Server{Handler: h, ReadHeaderTimeout: 1, ReadTimeout: 2, WriteTimeout: 3, IdleTimeout: 4, MaxHeaderBytes: 5}, log)
	if s.Handler == nil || s.ReadHeaderTimeout != 1 || s.ReadTimeout != 2 || s.WriteTimeout != 3 ||
		s.IdleTimeout != 4 || s.MaxHeaderBytes != 5 || s.Log != log {
		t.Fatalf("New gave %+v", s)
	}
}

// A handler that enables full duplex reads its whole body after its
// header and a first chunk have left: none of the body is drained away
// when the header goes, for net/http's server and this one alike.
func TestFullDuplexReadsBodyAfterHeader(t *testing.T) {
	const size = 1 << 20
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if err := rc.EnableFullDuplex(); err != nil {
			t.Errorf("EnableFullDuplex: %v", err)
		}
		w.WriteHeader(http.StatusOK)
		w.Write([]byte("started\n"))
		rc.Flush()
		n, err := io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, "%d %v", n, err)
	})
	addr, _ := startHTTP1(t, &http1.Server{Handler: h})
	pr, pw := io.Pipe()
	go func() {
		pw.Write(bytes.Repeat([]byte("x"), size))
		pw.Close()
	}()
	resp, err := http.Post("http://"+addr+"/", "text/plain", pr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if want := fmt.Sprintf("started\n%d <nil>", size); err != nil || string(got) != want {
		t.Errorf("got %q (%v), want %q", got, err, want)
	}
}

// TestRequestStarted holds the start a request's context tells its
// handler (what server/observe times the request from): after the
// client sent the head, both for a plain head and for one net/http
// parses (HTTP/1.0), and no later than the handler runs.
func TestRequestStarted(t *testing.T) {
	type starter interface{ Started() time.Time }
	var started, ran time.Time
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, ok := r.Context().(starter)
		if !ok {
			t.Errorf("the request's context %T does not tell when it started", r.Context())
			return
		}
		started, ran = s.Started(), time.Now()
	})
	addr, _ := startHTTP1(t, &http1.Server{Handler: h})
	for _, proto := range []string{"HTTP/1.1", "HTTP/1.0"} {
		cc := newClientConn(t, addr)
		sent := time.Now()
		cc.write("GET /started " + proto + "\r\nHost: x\r\n\r\n")
		cc.mustRead("GET")
		if started.Before(sent) || started.After(ran) {
			t.Errorf("%s: started at %v, want between the head sent (%v) and the handler run (%v)",
				proto, started, sent, ran)
		}
	}
}
