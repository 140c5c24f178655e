package server_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"
)

// TestBodyIncompleteAtReadTimeout: a body whose client has not sent all
// of it by server-read-timeout is answered 408 (RFC 9110 section 15.5.9:
// the server would not wait longer), not 400 as though what came were
// malformed; the connection then closes, the rest of the body unread.
func TestBodyIncompleteAtReadTimeout(t *testing.T) {
	base := serverWith(t, map[string]string{"server-read-timeout": "1"})
	c := dialServer(t, base)
	// Only so that a broken server fails the test rather than hangs it;
	// the answer is awaited, not timed.
	c.SetDeadline(time.Now().Add(time.Minute))
	io.WriteString(c, "POST /rpc/echo_json HTTP/1.1\r\nHost: svc\r\nContent-Type: application/json\r\n"+
		"Content-Length: 100\r\n\r\n"+`{"padding":"`)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	var e struct{ Code string }
	if json.Unmarshal(body, &e) != nil || resp.StatusCode != http.StatusRequestTimeout || e.Code != "SVC102" {
		t.Fatalf("answered %d %s, want 408 SVC102", resp.StatusCode, body)
	}
	if !resp.Close {
		t.Errorf("the answer does not say the connection closes: %v", resp.Header)
	}
}
