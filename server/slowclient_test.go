package server_test

import (
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestSlowClientCutOff: a client trickling its request a byte at a time
// (slowloris) cannot hold a connection by never finishing it, whether it
// trickles the headers or a body whose Content-Length promises more. The
// program itself runs (its listener is where the timeouts live), with
// server-read-timeout = 1, which also caps the time for headers; the
// connection must be answered or closed well within ten times that,
// though bytes keep coming the whole while.
func TestSlowClientCutOff(t *testing.T) {
	base, err := url.Parse(processWith(t, map[string]string{"server-read-timeout": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, start string }{
		{"headers", "GET /rpc/add?a=1&b=2 HTTP/1.1\r\nHost: svc\r\nX-Padding: "},
		{"body", "POST /rpc/echo_json HTTP/1.1\r\nHost: svc\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n" +
			`{"padding":"` + strings.Repeat("x", 100)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			trickleUntilCutOff(t, base.Host, tc.start)
		})
	}
}

// trickleUntilCutOff sends start to addr, then a byte every 100 ms, and
// fails unless the server hangs up between half a second and ten seconds
// later. An answer before it hangs up (a 408 or 400) is fine.
func trickleUntilCutOff(t *testing.T, addr, start string) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	trickled := make(chan struct{})
	go func() {
		defer close(trickled)
		if _, err := io.WriteString(conn, start); err != nil {
			return
		}
		// The request never ends; writing fails once the server has
		// closed the connection, or the test has.
		for {
			time.Sleep(100 * time.Millisecond)
			if _, err := conn.Write([]byte("x")); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		conn.Close()
		<-trickled
	})

	const bound = 10 * time.Second
	conn.SetReadDeadline(begin.Add(bound))
	got, err := io.ReadAll(conn)
	elapsed := time.Since(begin)
	// EOF (err == nil) or a reset (the server closed with our bytes
	// unread) both mean the server hung up; only our own deadline firing
	// means it held the connection.
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		t.Fatalf("the server still held a trickling connection after %v (read %q)", bound, got)
	}
	// Not before the timeout: a connection cut at once would be a refused
	// request, not a timed-out one. Half the timeout leaves ample slack.
	if elapsed < 500*time.Millisecond {
		t.Errorf("connection closed after %v, before server-read-timeout could apply (read %q, %v)", elapsed, got, err)
	}
}
