package http1_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/http1"
)

// conformanceHandler is the handler both servers run in the
// differential test; it routes on the URL path.
func conformanceHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/echo":
			body, err := io.ReadAll(r.Body)
			var b strings.Builder
			fmt.Fprintf(&b, "proto=%s method=%s uri=%s path=%s query=%s host=%s\n",
				r.Proto, r.Method, r.RequestURI, r.URL.Path, r.URL.RawQuery, r.Host)
			fmt.Fprintf(&b, "contentlength=%d te=%q close=%v\n", r.ContentLength, r.TransferEncoding, r.Close)
			for _, k := range slices.Sorted(func(yield func(string) bool) {
				for k := range r.Header {
					if k != "Host" && !yield(k) {
						return
					}
				}
			}) {
				fmt.Fprintf(&b, "%s: %q\n", k, r.Header[k])
			}
			fmt.Fprintf(&b, "body=%q err=%v\n", body, err)
			io.WriteString(w, b.String())
		case "/cl":
			w.Header().Set("Content-Length", "5")
			io.WriteString(w, "hello")
		case "/small":
			w.Write(bytes.Repeat([]byte("s"), 100))
		case "/big":
			chunk := bytes.Repeat([]byte("b"), 10<<10)
			for range 10 {
				w.Write(chunk)
			}
		case "/nocontent":
			w.WriteHeader(http.StatusNoContent)
		case "/notmodified":
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("ETag", `"v1"`)
			w.WriteHeader(http.StatusNotModified)
		case "/html":
			io.WriteString(w, "<html><body>hi</body></html>")
		case "/close":
			w.Header().Set("Connection", "close")
			io.WriteString(w, "bye")
		case "/keepalive":
			w.Header().Set("Connection", "keep-alive")
			io.WriteString(w, "kept")
		case "/ignorebody":
			io.WriteString(w, "ignored")
		case "/short":
			w.Header().Set("Content-Length", "10")
			io.WriteString(w, "12345")
		case "/status599":
			w.WriteHeader(599)
			io.WriteString(w, "odd")
		case "/writefirst":
			w.Header().Set("Content-Length", "2")
			io.WriteString(w, "ok")
			io.ReadAll(r.Body)
		case "/abort":
			panic(http.ErrAbortHandler)
		case "/slow":
			// Longer than DefaultWatchAfter: the watcher reads what
			// follows while this runs.
			select {
			case <-time.After(80 * time.Millisecond):
			case <-r.Context().Done():
			}
			fmt.Fprintf(w, "slow ctx=%v", r.Context().Err())
		default:
			http.NotFound(w, r)
		}
	})
}

// confCase is one raw exchange of the differential test.
type confCase struct {
	name string
	req  string
	// want is how many responses (1xx included) to wait for before
	// 500 ms of silence ends the exchange; it is a wait hint only.
	want int
	// methods are the request methods of the final responses in order,
	// for parsing HEAD responses; missing ones are GET.
	methods []string
}

// exchanged is what one server sent back on one connection.
type exchanged struct {
	raw    []byte
	closed string // "" (still open), "EOF", "reset" or another read error
}

// parsedResponse is the client-visible part of one response.
type parsedResponse struct {
	Proto            string
	Status           string
	ContentLength    int64
	TransferEncoding []string
	Close            bool
	Connection       []string
	ContentType      []string
	HasDate          bool
	Body             string
	BodyErr          string
}

const quiet = 500 * time.Millisecond

// exchange writes c.req on a fresh connection to addr and reads until
// the server closes it, or until quiet passes without a byte once c.want
// responses arrived (or 3 s passed).
func exchange(addr string, c confCase) exchanged {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return exchanged{closed: "dial: " + err.Error()}
	}
	defer conn.Close()
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
		conn.Write([]byte(c.req)) // the server may close before reading it all
	}()
	var ex exchanged
	start := time.Now()
	buf := make([]byte, 64<<10)
	for {
		conn.SetReadDeadline(time.Now().Add(quiet))
		n, err := conn.Read(buf)
		ex.raw = append(ex.raw, buf[:n]...)
		if err == nil {
			continue
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			resps, _ := parseResponses(ex.raw, c.methods)
			if len(resps) >= c.want || time.Since(start) > 3*time.Second {
				break
			}
			continue
		}
		switch {
		case errors.Is(err, io.EOF):
			ex.closed = "EOF"
		case errors.Is(err, syscall.ECONNRESET):
			ex.closed = "reset"
		default:
			ex.closed = err.Error()
		}
		break
	}
	conn.Close()
	<-wrote
	return ex
}

// parseResponses parses the responses in raw; tail describes what could
// not be parsed after them, if anything.
func parseResponses(raw []byte, methods []string) (resps []parsedResponse, tail string) {
	br := bufio.NewReader(bytes.NewReader(raw))
	final := 0
	for {
		if _, err := br.Peek(1); err != nil {
			return resps, ""
		}
		method := "GET"
		if final < len(methods) {
			method = methods[final]
		}
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			rest, _ := io.ReadAll(br)
			return resps, fmt.Sprintf("unparsable (%v): %q", err, rest)
		}
		body, err := io.ReadAll(resp.Body)
		p := parsedResponse{
			Proto: resp.Proto, Status: resp.Status, ContentLength: resp.ContentLength,
			TransferEncoding: resp.TransferEncoding, Close: resp.Close,
			Connection: resp.Header["Connection"], ContentType: resp.Header["Content-Type"],
			HasDate: resp.Header.Get("Date") != "", Body: string(body),
		}
		if err != nil {
			p.BodyErr = err.Error()
			return append(resps, p), ""
		}
		resps = append(resps, p)
		if resp.StatusCode >= 200 {
			final++
		}
	}
}

// conformanceCases are the exchanges both servers must answer alike.
var conformanceCases = []confCase{
	{name: "simple GET", want: 1, req: "GET /echo HTTP/1.1\r\nHost: example.com\r\nUser-Agent: t\r\nAccept: */*\r\n\r\n"},
	{name: "two pipelined GETs", want: 2, req: "GET /echo HTTP/1.1\r\nHost: a\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "GET POST GET pipelined", want: 3, req: "GET /cl HTTP/1.1\r\nHost: a\r\n\r\n" +
		"POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world" +
		"GET /small HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "POST chunked body", want: 1, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"},
	{name: "POST malformed chunked body", want: 1, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n"},
	{name: "POST without length has no body", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "unread small body then pipelined GET", want: 2, req: "POST /ignorebody HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n" +
		strings.Repeat("x", 1000) + "GET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "unread 300KiB body then pipelined GET", want: 1, req: "POST /ignorebody HTTP/1.1\r\nHost: a\r\nContent-Length: 307200\r\n\r\n" +
		strings.Repeat("x", 300<<10) + "GET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "unread 256KiB body then pipelined GET", want: 1, req: "POST /ignorebody HTTP/1.1\r\nHost: a\r\nContent-Length: 262144\r\n\r\n" +
		strings.Repeat("x", 256<<10) + "GET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "unread 300KiB body, answer with Content-Length", want: 1, req: "POST /cl HTTP/1.1\r\nHost: a\r\nContent-Length: 307200\r\n\r\n" +
		strings.Repeat("x", 300<<10) + "GET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "unread chunked body then pipelined GET", want: 2, req: "POST /ignorebody HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"3\r\nabc\r\n0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "HEAD /cl", want: 1, methods: []string{"HEAD"}, req: "HEAD /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "HEAD /small", want: 1, methods: []string{"HEAD"}, req: "HEAD /small HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "GET /big chunked", want: 1, req: "GET /big HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "GET /nocontent", want: 1, req: "GET /nocontent HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "GET /notmodified", want: 1, req: "GET /notmodified HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "GET /html sniffed", want: 1, req: "GET /html HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "GET /close", want: 1, req: "GET /close HTTP/1.1\r\nHost: a\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "GET /short then GET", want: 1, req: "GET /short HTTP/1.1\r\nHost: a\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "GET /status599", want: 1, req: "GET /status599 HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "GET not found", want: 1, req: "GET /nowhere HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "HTTP/1.0 GET without Host", want: 1, req: "GET /echo HTTP/1.0\r\n\r\n"},
	{name: "HTTP/1.0 keep-alive /cl", want: 2, req: "GET /cl HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /cl HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"},
	{name: "HTTP/1.0 keep-alive /small", want: 1, req: "GET /small HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"},
	{name: "HTTP/1.0 keep-alive /big", want: 1, req: "GET /big HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"},
	{name: "HTTP/1.0 keep-alive /close", want: 1, req: "GET /close HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"},
	{name: "HTTP/1.0 keep-alive /nocontent", want: 1, req: "GET /nocontent HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"},
	{name: "HTTP/1.0 keep-alive HEAD /small", want: 1, methods: []string{"HEAD"}, req: "HEAD /small HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"},
	{name: "Connection close request", want: 1, req: "GET /cl HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "request line garbage", want: 1, req: "GARBAGE\r\n\r\n"},
	{name: "missing Host", want: 1, req: "GET /echo HTTP/1.1\r\n\r\n"},
	{name: "two Host headers", want: 1, req: "GET /echo HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"},
	{name: "Host with space", want: 1, req: "GET /echo HTTP/1.1\r\nHost: a b\r\n\r\n"},
	// net/http's read limit is MaxHeaderBytes plus 4096 bytes of slack:
	// on a first request a 5000-byte header block passes, a 10000-byte
	// one gets 431.
	{name: "header block 5000 bytes", want: 1, req: "GET /cl HTTP/1.1\r\nHost: a\r\nX-Big: " + strings.Repeat("a", 5000) + "\r\n\r\n"},
	{name: "header block over limit", want: 1, req: "GET /cl HTTP/1.1\r\nHost: a\r\nX-Big: " + strings.Repeat("a", 10000) + "\r\n\r\n"},
	{name: "header block far over limit", want: 1, req: "GET /cl HTTP/1.1\r\nHost: a\r\nX-Big: " + strings.Repeat("a", 20000) + "\r\n\r\n"},
	{name: "header name with space", want: 1, req: "GET /echo HTTP/1.1\r\nHost: a\r\nBad Name: v\r\n\r\n"},
	{name: "header name with control char", want: 1, req: "GET /echo HTTP/1.1\r\nHost: a\r\nX\x01Y: v\r\n\r\n"},
	{name: "header value with control char", want: 1, req: "GET /echo HTTP/1.1\r\nHost: a\r\nX-A: a\x01b\r\n\r\n"},
	{name: "Content-Length and chunked", want: 1, req: "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"5\r\nhello\r\n0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "Content-Length and chunked, the handler asking keep-alive", want: 1, req: "POST /keepalive HTTP/1.1\r\nHost: a\r\n" +
		"Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n5\r\nhello\r\n0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "two differing Content-Lengths", want: 1, req: "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"},
	{name: "Transfer-Encoding gzip", want: 1, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\nabc"},
	{name: "HTTP/2.0 request line", want: 1, req: "GET /echo HTTP/2.0\r\nHost: a\r\n\r\n"},
	{name: "Expect foo", want: 1, req: "GET /echo HTTP/1.1\r\nHost: a\r\nExpect: foo\r\n\r\n"},
	{name: "Expect 100-continue body sent at once", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello"},
	{name: "Expect 100-continue body read after the answer", want: 2, req: "POST /writefirst HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello" +
		"GET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "bare LF line endings", want: 1, req: "GET /echo HTTP/1.1\nHost: a\nX-A: b\n\n"},
	{name: "CRLF after POST body", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "two CRLFs after POST body", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "lowercase method", want: 1, req: "get /echo HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "absolute-form target", want: 1, req: "GET http://x/echo?a=1 HTTP/1.1\r\nHost: y\r\n\r\n"},
	{name: "query and path escapes", want: 1, req: "GET /ec%68o?q=a%20b%26c&x=%zz&y=%E2%82%AC HTTP/1.1\r\nHost: a\r\n\r\n"},
	// A target that does not parse is answered 400, never a silent close.
	{name: "target with a lone percent", want: 1, req: "GET /todos% HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "target with a bad escape", want: 1, req: "GET /todos%g1 HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "target with a control character", want: 1, req: "GET /to\x01dos HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "query with a control character", want: 1, req: "GET /echo?a=\x7f HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "absolute-form target with a bad escape", want: 1, req: "GET http://x/ech%o HTTP/1.1\r\nHost: y\r\n\r\n"},
	{name: "pipelined GET then a bad target", want: 2, req: "GET /cl HTTP/1.1\r\nHost: a\r\n\r\nGET /%zz HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "query with a stray percent and a semicolon", want: 1, req: "GET /echo?k=eq.50%;b&c=%g1 HTTP/1.1\r\nHost: a\r\n\r\n"},
	// The watcher reads on while a slow request runs: what it reads, a
	// byte or whole requests, is served next, in order.
	{name: "slow GET with a pipelined GET ahead", want: 2, req: "GET /slow HTTP/1.1\r\nHost: a\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "slow GET with a byte ahead", want: 1, req: "GET /slow HTTP/1.1\r\nHost: a\r\n\r\nG"},
	{name: "slow POST with a pipelined POST ahead", want: 2, req: "POST /slow HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc" +
		"POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"},
	{name: "slow GET with a bad target ahead", want: 2, req: "GET /slow HTTP/1.1\r\nHost: a\r\n\r\nGET /x% HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "slow GET with three requests ahead", want: 4, req: strings.Repeat("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n", 2) +
		"GET /small HTTP/1.1\r\nHost: a\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"},
	{name: "OPTIONS star", want: 1, req: "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "pipelined GET then incomplete request", want: 1, req: "GET /cl HTTP/1.1\r\nHost: a\r\n\r\nGET /cl HTT"},
	{name: "pipelined GET then aborted handler", want: 1, req: "GET /cl HTTP/1.1\r\nHost: a\r\n\r\nGET /abort HTTP/1.1\r\nHost: a\r\n\r\n"},
}

// smugglingCases frame a request body ambiguously, each followed by a GET
// that a front end reading the framing the other way would take for the
// body, or the reverse (request smuggling). Whatever http1 makes of one,
// net/http must make the same: refuse it, or read the same body and serve
// the same next request.
var smugglingCases = []confCase{
	{name: "smuggle: chunked then Content-Length", want: 1, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n" +
		"5\r\nhello\r\n0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: Content-Length covers a request", want: 1, req: "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 37\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"0\r\n\r\nGET /small HTTP/1.1\r\nHost: a\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: two Transfer-Encoding headers", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n" +
		"5\r\nhello\r\n0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: Transfer-Encoding list", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity, chunked\r\n\r\n" +
		"5\r\nhello\r\n0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: Transfer-Encoding chunked twice in a list", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n" +
		"5\r\nhello\r\n0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: Transfer-Encoding in capitals", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: CHUNKED\r\n\r\n" +
		"5\r\nhello\r\n0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: Transfer-Encoding xchunked", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\nContent-Length: 5\r\n\r\n" +
		"hello GET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: space before the colon", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding : chunked\r\nContent-Length: 5\r\n\r\n" +
		"0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: tab before the value", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\tchunked\r\n\r\n" +
		"5\r\nhello\r\n0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: folded Transfer-Encoding", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\r\n chunked\r\nContent-Length: 5\r\n\r\n" +
		"0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: Transfer-Encoding with a NUL", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\x00\r\nContent-Length: 5\r\n\r\n" +
		"0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: bare CR in a header", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nX-A: b\rTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n" +
		"0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: chunked in HTTP/1.0", want: 2, req: "POST /echo HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"5\r\nhello\r\n0\r\n\r\nGET /cl HTTP/1.0\r\n\r\n"},
	{name: "smuggle: two equal Content-Lengths", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n" +
		"helloGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: Content-Length list", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\nhelloGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: signed Content-Length", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\nhelloGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: negative Content-Length", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: -5\r\n\r\nhelloGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: hexadecimal Content-Length", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 0x5\r\n\r\nhelloGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: Content-Length with leading zeros", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 005\r\n\r\nhelloGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: Content-Length with spaces", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length:  5 \r\n\r\nhelloGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: Content-Length past 2^63", want: 1, req: "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\nhello"},
	{name: "smuggle: GET with a body then a GET", want: 2, req: "GET /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 32\r\n\r\n" +
		"GET /small HTTP/1.1\r\nHost: a\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: chunk extension", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"5;ext=\"x\"\r\nhello\r\n0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: chunk size with a space", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"5 \r\nhello\r\n0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: chunk size 0x-prefixed", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"0x5\r\nhello\r\n0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: chunk size overflowing", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"10000000000000005\r\nhello\r\n0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: chunk lines ending in LF", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"5\nhello\n0\n\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: chunk data longer than its size", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"3\r\nhello\r\n0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: trailer after the last chunk", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"5\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: a request line in a trailer", want: 2, req: "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"0\r\nGET /small HTTP/1.1\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "smuggle: space before the first header", want: 2, req: "POST /echo HTTP/1.1\r\n Transfer-Encoding: chunked\r\nHost: a\r\nContent-Length: 5\r\n\r\n" +
		"0\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
}

// keepAliveCases are about when a connection carries another request:
// what Connection says, in which protocol version, and what the answer
// needs (a length, a close).
var keepAliveCases = []confCase{
	{name: "keep-alive: HTTP/1.0 closes by default", want: 1, req: "GET /cl HTTP/1.0\r\n\r\nGET /cl HTTP/1.0\r\n\r\n"},
	{name: "keep-alive: HTTP/1.0 keep-alive POST", want: 2, req: "POST /echo HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 5\r\n\r\nhello" +
		"GET /cl HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"},
	{name: "keep-alive: HTTP/1.0 keep-alive, then without", want: 2, req: "GET /cl HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" +
		"GET /cl HTTP/1.0\r\n\r\nGET /cl HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"},
	{name: "keep-alive: HTTP/1.0 keep-alive in capitals", want: 2, req: "GET /cl HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\nGET /cl HTTP/1.0\r\n\r\n"},
	{name: "keep-alive: HTTP/1.0 keep-alive in a list", want: 2, req: "GET /cl HTTP/1.0\r\nConnection: foo, keep-alive\r\n\r\nGET /cl HTTP/1.0\r\n\r\n"},
	{name: "keep-alive: HTTP/1.0 keep-alive, answer without a length", want: 1, req: "GET /small HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" +
		"GET /cl HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"},
	{name: "keep-alive: HTTP/1.1 keep-alive header", want: 2, req: "GET /cl HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n" +
		"GET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "keep-alive: close in capitals", want: 1, req: "GET /cl HTTP/1.1\r\nHost: a\r\nConnection: CLOSE\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "keep-alive: close in a list", want: 1, req: "GET /cl HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, close\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "keep-alive: two Connection headers", want: 1, req: "GET /cl HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n" +
		"GET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "keep-alive: close on a POST with a body", want: 1, req: "POST /echo HTTP/1.1\r\nHost: a\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello" +
		"GET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "keep-alive: close on a chunked answer", want: 1, req: "GET /big HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"},
	{name: "keep-alive: close on HEAD", want: 1, methods: []string{"HEAD"}, req: "HEAD /cl HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"},
	{name: "keep-alive: Upgrade asked for", want: 2, req: "GET /cl HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n" +
		"GET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "keep-alive: ten pipelined requests", want: 10, req: strings.Repeat("GET /cl HTTP/1.1\r\nHost: a\r\n\r\n", 9) +
		"GET /small HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "keep-alive: a 304 then a request", want: 2, req: "GET /notmodified HTTP/1.1\r\nHost: a\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "keep-alive: a 204 then a request", want: 2, req: "GET /nocontent HTTP/1.1\r\nHost: a\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "keep-alive: a 404 then a request", want: 2, req: "GET /nowhere HTTP/1.1\r\nHost: a\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
	{name: "keep-alive: a 400 ends the connection", want: 1, req: "GET /echo HTTP/1.1\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"},
}

// TestConformance proves http1 answers each raw request on the wire
// exactly as net/http's server does, as svc-serve runs it (startNetHTTP).
func TestConformance(t *testing.T) {
	h := conformanceHandler()
	stdAddr := startNetHTTP(t, &http.Server{Handler: h, MaxHeaderBytes: 4096})
	h1Addr, _ := startHTTP1(t, &http1.Server{Handler: h, MaxHeaderBytes: 4096})
	for _, c := range slices.Concat(conformanceCases, smugglingCases, keepAliveCases) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var std exchanged
			done := make(chan struct{})
			go func() { defer close(done); std = exchange(stdAddr, c) }()
			h1 := exchange(h1Addr, c)
			<-done
			compareExchanges(t, c, std, h1)
		})
	}
}

// compareExchanges reports every client-visible difference between
// net/http's answer std and http1's answer h1.
func compareExchanges(t *testing.T, c confCase, std, h1 exchanged) {
	t.Helper()
	stdResps, stdTail := parseResponses(std.raw, c.methods)
	h1Resps, h1Tail := parseResponses(h1.raw, c.methods)
	var diffs []string
	if len(stdResps) == 0 && stdTail == "" && std.closed != "EOF" {
		diffs = append(diffs, "net/http sent nothing and did not close: the case is broken")
	}
	if len(stdResps) != len(h1Resps) {
		diffs = append(diffs, fmt.Sprintf("responses: net/http %d, http1 %d", len(stdResps), len(h1Resps)))
	}
	for i := range min(len(stdResps), len(h1Resps)) {
		s, h := reflect.ValueOf(stdResps[i]), reflect.ValueOf(h1Resps[i])
		for f := range s.NumField() {
			if !reflect.DeepEqual(s.Field(f).Interface(), h.Field(f).Interface()) {
				diffs = append(diffs, fmt.Sprintf("response %d %s: net/http %q, http1 %q", i,
					s.Type().Field(f).Name, clip(fmt.Sprint(s.Field(f).Interface())), clip(fmt.Sprint(h.Field(f).Interface()))))
			}
		}
	}
	if stdTail != h1Tail {
		diffs = append(diffs, fmt.Sprintf("after the responses: net/http %q, http1 %q", clip(stdTail), clip(h1Tail)))
	}
	if std.closed != h1.closed {
		diffs = append(diffs, fmt.Sprintf("connection end: net/http %q, http1 %q (\"\" = left open)", std.closed, h1.closed))
	}
	if len(diffs) > 0 {
		t.Errorf("case %q: http1 differs from net/http:\n  %s\nrequest: %q\nnet/http raw: %q\nhttp1 raw:    %q",
			c.name, strings.Join(diffs, "\n  "), clip(c.req), clip(string(std.raw)), clip(string(h1.raw)))
	}
}

// clip shortens s for a failure message.
func clip(s string) string {
	if len(s) > 600 {
		return s[:300] + fmt.Sprintf("...(%d bytes)...", len(s)-600) + s[len(s)-300:]
	}
	return s
}

// TestConformanceH2Preface proves http1 answers the HTTP/2 preface with 505 and close.
func TestConformanceH2Preface(t *testing.T) {
	// Not compared with net/http, which hands "PRI * HTTP/2.0" to the
	// handler (or upgrades to h2c when configured to): no h2c is the one
	// accepted difference (package doc: "no HTTP/2").
	addr, _ := startHTTP1(t, &http1.Server{Handler: conformanceHandler(), MaxHeaderBytes: 4096})
	c := confCase{name: "h2 preface", want: 1, req: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"}
	ex := exchange(addr, c)
	resps, tail := parseResponses(ex.raw, nil)
	if len(resps) != 1 || tail != "" || resps[0].Status != "505 HTTP Version Not Supported: unsupported protocol version" || ex.closed != "EOF" {
		t.Errorf("http1 answered the h2 preface with %q (end %q), want one 505 and close", ex.raw, ex.closed)
	}
}

// TestDeliberateDifferences proves http1's answer where it differs from
// net/http's on purpose, each named in the package doc.
func TestDeliberateDifferences(t *testing.T) {
	addr, _ := startHTTP1(t, &http1.Server{Handler: conformanceHandler(), MaxHeaderBytes: 4096})

	// A HEAD answer declares the length GET's body would have, however
	// long; net/http leaves it out once the body passes its 2 KiB buffer.
	c := confCase{name: "HEAD /big then GET", want: 2, methods: []string{"HEAD", "GET"},
		req: "HEAD /big HTTP/1.1\r\nHost: a\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n"}
	ex := exchange(addr, c)
	resps, tail := parseResponses(ex.raw, c.methods)
	if len(resps) != 2 || tail != "" || resps[0].ContentLength != 100<<10 || resps[0].Body != "" ||
		resps[1].Body != "hello" || ex.closed != "" {
		t.Errorf("HEAD /big then GET: got %q (end %q), want a bodiless HEAD answer with Content-Length 102400, then hello", clip(string(ex.raw)), ex.closed)
	}

	// A request in absolute form names its host in the target; http1
	// cannot tell whether a Host header came too, since http.ReadRequest
	// drops it, so it serves the request where net/http answers 400.
	c = confCase{name: "absolute-form target without Host", want: 1, req: "GET http://x/echo HTTP/1.1\r\n\r\n"}
	ex = exchange(addr, c)
	resps, _ = parseResponses(ex.raw, nil)
	if len(resps) != 1 || resps[0].Status != "200 OK" || !strings.Contains(resps[0].Body, "host=x") {
		t.Errorf("absolute-form target without Host: got %q, want 200 with host x", clip(string(ex.raw)))
	}
}
