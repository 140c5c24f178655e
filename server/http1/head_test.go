package http1

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/http/httpguts"
)

// plainHeads are heads of the form clients send, which parseHead parses
// itself.
var plainHeads = []string{
	"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n",
	"GET /books?select=id,title,author(name)&id=eq.5&order=title.desc HTTP/1.1\r\nHost: 127.0.0.1:3000\r\n\r\n",
	"HEAD /rpc/add?a=1&b=2 HTTP/1.1\r\nhost: x\r\naccept: application/json\r\nprefer: count=exact\r\n\r\n",
	"POST /reviews HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"rating\":5}\nGET / HTTP/1.1\r\n\r\n",
	"PATCH /t?id=eq.1 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
	"DELETE /t?id=in.(1,2) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a.b.c\r\nContent-Length: 0\r\n\r\n",
	"OPTIONS /t HTTP/1.1\r\nHost: x\r\nOrigin: http://example.com\r\nAccess-Control-Request-Method: POST\r\n\r\n",
	"PUT /t?id=eq.1 HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\nExpect: 100-continue\r\n\r\n{\"id\":1}\n",
	"GET /t HTTP/1.1\r\nHost: x\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0\r\n" +
		"Accept-Encoding: gzip, deflate, br\r\nAccept-Language: en-US,en;q=0.9\r\nConnection: keep-alive\r\n" +
		"Cookie: a=1; b=2\r\nX-Empty:\r\nX-Spaced: \t padded \t\r\nrange: 0-9\r\n\r\n",
	"GET /a/b.c/~d_e-f$g&h+i,j:k;l=m@n HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /t?q=a%20b&r=[1]{2}|'\"`^\\ HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /t HTTP/1.1\r\n\r\n",
}

// rawHeads are heads parseHead leaves to http.ReadRequest: each is
// something net/http acts on, refuses or reads another way.
var rawHeads = []string{
	"GET / HTTP/1.0\r\nHost: x\r\n\r\n",
	"GET / HTTP/1.1\nHost: x\n\n",
	"GET / HTTP/1.1\r\nHost: x\n\r\n\r\n",
	"GET /a%2Fb HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /(x) HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /t? HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /t#f HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET * HTTP/1.1\r\nHost: x\r\n\r\n",
	"BREW / HTTP/1.1\r\nHost: x\r\n\r\n",
	"get / HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET  / HTTP/1.1\r\nHost: x\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab",
	"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +2\r\n\r\nab",
	"POST / HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\nx-a: 2\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n b\r\n\r\n",
	"GET / HTTP/1.1\r\n Host: x\r\n\r\n",
	"GET / HTTP/1.1\r\nHost : x\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nNo-Colon\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\n: empty\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nPragma: no-cache\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nTrailer: X\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nX-Bin: caf\xc3\xa9\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nX-Ctl: a\x01b\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\n", // not whole
}

// Every plain head is parsed here, and every other is left to
// http.ReadRequest; both as FuzzHeadAsReadRequest requires.
func TestParseHeadTakesPlainHeadsOnly(t *testing.T) {
	for _, head := range plainHeads {
		var req http.Request
		if n, _ := parseHead([]byte(head), &req); n == 0 {
			t.Errorf("left a plain head to http.ReadRequest: %q", head)
		}
		sameAsReadRequest(t, []byte(head))
	}
	for _, head := range rawHeads {
		var req http.Request
		if n, _ := parseHead([]byte(head), &req); n != 0 || !reflect.DeepEqual(req, http.Request{}) {
			t.Errorf("parsed %q (%d bytes) instead of leaving it to http.ReadRequest", head, n)
		}
	}
}

// FuzzHeadAsReadRequest: whatever the bytes, a head parseHead parses is
// the request http.ReadRequest reads from them, field by field, followed
// by the same body and the same bytes after it.
func FuzzHeadAsReadRequest(f *testing.F) {
	for _, head := range append(plainHeads, rawHeads...) {
		f.Add([]byte(head))
	}
	f.Fuzz(sameAsReadRequest)
}

// sameAsReadRequest fails t when parseHead parses data other than
// http.ReadRequest reads it.
func sameAsReadRequest(t *testing.T, data []byte) {
	var got http.Request
	n, _ := parseHead(data, &got)
	if n == 0 {
		return
	}
	br := bufio.NewReader(bytes.NewReader(data))
	want, err := http.ReadRequest(br)
	if err != nil {
		t.Fatalf("parsed %q, which http.ReadRequest refuses: %v", data, err)
	}
	// checkRequest trusts a parsed head's fields to be valid.
	for k, vv := range got.Header {
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldName(k) || !httpguts.ValidHeaderFieldValue(v) {
				t.Fatalf("%q: parsed a field net/http's server refuses: %q: %q", data, k, v)
			}
		}
	}
	wantBody := want.Body
	want.Body = nil // parseHead leaves the body to its caller
	if !reflect.DeepEqual(got, *want) {
		t.Fatalf("%q:\nparsed  %#v\nnet/http %#v\nURL %#v against %#v", data, got, *want, got.URL, want.URL)
	}
	if (wantBody == http.NoBody) != (got.ContentLength == 0) {
		t.Fatalf("%q: Content-Length %d, net/http's body %T", data, got.ContentLength, wantBody)
	}
	wantRead, wantErr := io.ReadAll(wantBody)
	wantRest, _ := io.ReadAll(br)
	gr := bufio.NewReader(bytes.NewReader(data[n:]))
	var body io.Reader = http.NoBody
	if got.ContentLength > 0 {
		body = &fixedBody{r: gr, remain: got.ContentLength}
	}
	gotBody, gotErr := io.ReadAll(body)
	gotRest, _ := io.ReadAll(gr)
	if !bytes.Equal(gotBody, wantRead) || !errors.Is(gotErr, wantErr) || !bytes.Equal(gotRest, wantRest) {
		t.Fatalf("%q: body %q (%v) then %q; net/http %q (%v) then %q", data, gotBody, gotErr, gotRest, wantRead, wantErr, wantRest)
	}
}

// A body shorter than its Content-Length ends in io.ErrUnexpectedEOF, and
// one read after Close fails, as net/http's do.
func TestFixedBodyEnds(t *testing.T) {
	b := &fixedBody{r: bufio.NewReader(strings.NewReader("abc")), remain: 5}
	got, err := io.ReadAll(b)
	if string(got) != "abc" || err != io.ErrUnexpectedEOF {
		t.Errorf("short body: %q, %v; want \"abc\", unexpected EOF", got, err)
	}
	b = &fixedBody{r: bufio.NewReader(strings.NewReader("abcdef")), remain: 3}
	p := make([]byte, 8)
	if n, err := b.Read(p); n != 3 || err != io.EOF {
		t.Errorf("whole body in one read: %d, %v; want 3 bytes with EOF", n, err)
	}
	b.Close()
	if _, err := b.Read(p); err != http.ErrBodyReadAfterClose {
		t.Errorf("read after Close: %v", err)
	}
}

// FuzzComposedHeadAsReadRequest composes heads from fuzzed parts, so
// that most of them are near the plain form parseHead takes, where a
// difference from net/http would hide, rather than noise it leaves to
// http.ReadRequest.
func FuzzComposedHeadAsReadRequest(f *testing.F) {
	f.Add("GET", "/t?id=eq.1", "Host", "x", "Accept", "application/json", "")
	f.Add("POST", "/reviews", "host", "x", "content-length", "3", "abcdef")
	f.Add("PATCH", "/a/b", "Connection", "close", "X-Y", " \tv\t ", "")
	f.Fuzz(func(t *testing.T, method, target, name1, value1, name2, value2, body string) {
		head := method + " " + target + " HTTP/1.1\r\n" + name1 + ": " + value1 + "\r\n" +
			name2 + ":" + value2 + "\r\n\r\n" + body
		sameAsReadRequest(t, []byte(head))
	})
}
