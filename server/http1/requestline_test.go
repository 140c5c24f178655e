package http1_test

import (
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/http1"
)

// requestLineCases are TestRequestLine's, and seeds of FuzzServeConn.
var requestLineCases = []struct {
	name, req string
	// statuses are the answers' status codes in order; the
	// connection ends after them when the last is 400.
	statuses []string
}{
	{"CRLF before the first request", "\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n", []string{"200"}},
	{"LF before the first request", "\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n", []string{"200"}},
	{"CRLF between pipelined GETs", "GET /cl HTTP/1.1\r\nHost: a\r\n\r\n\r\nGET /cl HTTP/1.1\r\nHost: a\r\n\r\n",
		[]string{"200", "200"}},
	{"OPTIONS star", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", []string{"200"}},
	{"GET star", "GET * HTTP/1.1\r\nHost: a\r\n\r\n", []string{"400"}},
	{"POST star", "POST * HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", []string{"400"}},
	{"CONNECT authority", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", []string{"400"}},
	{"CONNECT without Host", "CONNECT example.com:443 HTTP/1.1\r\n\r\n", []string{"400"}},
	{"absolute-form http", "GET http://x/echo HTTP/1.1\r\nHost: x\r\n\r\n", []string{"200"}},
	{"absolute-form HTTPS in capitals", "GET HTTPS://x/echo HTTP/1.1\r\nHost: x\r\n\r\n", []string{"200"}},
	{"absolute-form ftp", "GET ftp://x/echo HTTP/1.1\r\nHost: x\r\n\r\n", []string{"400"}},
	{"absolute-form file", "GET file:///etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n", []string{"400"}},
	{"raw UTF-8 in the path", "GET /caf\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n", []string{"400"}},
	{"raw byte in the query", "GET /echo?q=\xff HTTP/1.1\r\nHost: a\r\n\r\n", []string{"400"}},
	{"escaped UTF-8 in the query", "GET /echo?q=%E2%82%AC HTTP/1.1\r\nHost: a\r\n\r\n", []string{"200"}},
	{"braces and pipes in the query", "GET /echo?a=cs.{x,y}&b=x|y HTTP/1.1\r\nHost: a\r\n\r\n", []string{"200"}},
}

// TestRequestLine holds http1 to RFC 9112's request line where net/http's
// server is laxer or stricter (each a deliberate difference, in the
// package doc): an empty line before a request is skipped (section 2.2;
// net/http skips one only after a POST, and answers 400 otherwise); the
// asterisk form is OPTIONS's only (3.2.4) and the authority form
// CONNECT's, which asks for a tunnel no origin server gives (3.2.3), so
// both are refused where net/http hands them to the handler (SVC's
// router redirected them, 301); an absolute-form target names an http or https
// URI (3.2.2); and a target is ASCII (3.2, RFC 3986), where net/http
// passes raw non-ASCII bytes on.
func TestRequestLine(t *testing.T) {
	addr, _ := startHTTP1(t, &http1.Server{Handler: conformanceHandler(), MaxHeaderBytes: 4096})
	for _, c := range requestLineCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ex := exchange(addr, confCase{name: c.name, want: len(c.statuses), req: c.req})
			resps, tail := parseResponses(ex.raw, nil)
			var got []string
			for _, r := range resps {
				got = append(got, strings.SplitN(r.Status, " ", 2)[0])
			}
			if strings.Join(got, ",") != strings.Join(c.statuses, ",") || tail != "" {
				t.Fatalf("answered %q, want statuses %v", clip(string(ex.raw)), c.statuses)
			}
			if c.statuses[len(c.statuses)-1] == "400" && ex.closed != "EOF" {
				t.Errorf("the connection was not closed after the 400 (end %q)", ex.closed)
			}
		})
	}
}
