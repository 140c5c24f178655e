package server_test

import (
	"errors"
	"io"
	"net"
	"net/url"
	"testing"
	"time"
)

// TestSlowClientCutOff: a client trickling its request headers a byte at a
// time (slowloris) cannot hold a connection by never finishing them. The
// program itself runs (its listener is where the timeouts live), with
// server-read-timeout = 1, which also caps the time for headers; the
// connection must be closed well within ten times that, though bytes keep
// coming the whole while.
func TestSlowClientCutOff(t *testing.T) {
	onEachHTTPServer(t, testSlowClientCutOff)
}

func testSlowClientCutOff(t *testing.T, httpServer string) {
	base, err := url.Parse(processWith(t, map[string]string{"server-read-timeout": "1", "server-http": httpServer}))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", base.Host)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	trickled := make(chan struct{})
	go func() {
		defer close(trickled)
		if _, err := io.WriteString(conn, "GET /rpc/add?a=1&b=2 HTTP/1.1\r\nHost: svc\r\nX-Padding: "); err != nil {
			return
		}
		// The header never ends; writing fails once the server has closed
		// the connection, or the test has.
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
	conn.SetReadDeadline(start.Add(bound))
	got, err := io.ReadAll(conn)
	elapsed := time.Since(start)
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
