package server_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestFramedTwiceCloses: a request framed both by Content-Length and by
// Transfer-Encoding is answered by its chunked body, and its connection
// then closes (RFC 9112 section 6.1): a proxy that framed the bytes by
// Content-Length would read the rest as another request. The same request
// chunked alone keeps the connection, so the second request shows which
// one closed. (http1's conformance test holds the other malformed and
// smuggling requests, answered as net/http's server answers them.)
func TestFramedTwiceCloses(t *testing.T) {
	const body = `{"a":1,"b":2}`
	base := fixture.url
	for _, tc := range []struct {
		name, framing string
		closes        bool
	}{
		{"both", "Content-Length: 13\r\nTransfer-Encoding: chunked\r\n", true},
		{"both, Transfer-Encoding first", "Transfer-Encoding: chunked\r\ncontent-length: 13\r\n", true},
		{"chunked alone", "Transfer-Encoding: chunked\r\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialServer(t, base)
			// Only so that a broken server fails the test rather
			// than hangs it; nothing here waits on a clock.
			c.SetDeadline(time.Now().Add(time.Minute))
			io.WriteString(c, "POST /rpc/add HTTP/1.1\r\nHost: svc\r\nContent-Type: application/json\r\n"+tc.framing+
				"\r\nd\r\n"+body+"\r\n0\r\n\r\n")
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || strings.TrimSpace(string(got)) != "3" {
				t.Fatalf("answered %d %q, want 200 and 3 (the chunked body's sum)", resp.StatusCode, got)
			}
			if resp.Close != tc.closes {
				t.Errorf("the answer's Connection says close: %v, want %v", resp.Close, tc.closes)
			}
			io.WriteString(c, "GET /authors?select=id&id=eq.1 HTTP/1.1\r\nHost: svc\r\n\r\n")
			next, err := http.ReadResponse(br, nil)
			switch {
			case tc.closes && err == nil:
				t.Errorf("the connection stayed open: a second request was answered %d", next.StatusCode)
			case !tc.closes && err != nil:
				t.Errorf("the connection closed after a request chunked alone: %v", err)
			}
		})
	}
}
