package server_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"
)

// logThenNap is a raw POST of /rpc/log_then_nap, which writes name to
// rpc_log and then sleeps.
func logThenNap(name string, seconds float64) string {
	body := fmt.Sprintf(`{"name":%q,"seconds":%g}`, name, seconds)
	return fmt.Sprintf("POST /rpc/log_then_nap HTTP/1.1\r\nHost: svc\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}

// dialFixture connects to the shared server.
func dialFixture(t *testing.T) *net.TCPConn {
	t.Helper()
	u, _ := url.Parse(fixture.url)
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*net.TCPConn)
}

// logged counts the rows of rpc_log named name.
func logged(t *testing.T, name string) int {
	t.Helper()
	var n int
	if err := superConn(t).QueryRow(t.Context(), "select count(*) from test.rpc_log where name = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestClientLeavingGetsNoSuccess: a client that leaves while its write
// runs (half-closing, as a client that gives up does) has the write
// cancelled and rolled back, and is sent nothing: no 200 with an empty
// body for work that was undone. Whatever the client sent besides (one
// byte, a pipelined request, bytes that came once the request ran), its
// leaving is seen.
func TestClientLeavingGetsNoSuccess(t *testing.T) {
	const nap = 5 // seconds; a request that is not cancelled takes as long
	cases := []struct {
		name string
		send func(c *net.TCPConn, req string)
	}{
		{"half-close after the body", func(c *net.TCPConn, req string) {
			io.WriteString(c, req)
		}},
		{"one byte ahead", func(c *net.TCPConn, req string) {
			io.WriteString(c, req+"G")
		}},
		{"a pipelined request ahead", func(c *net.TCPConn, req string) {
			io.WriteString(c, req+"GET /authors HTTP/1.1\r\nHost: svc\r\n\r\n")
		}},
		{"a byte once the request runs", func(c *net.TCPConn, req string) {
			io.WriteString(c, req)
			time.Sleep(300 * time.Millisecond)
			io.WriteString(c, "G")
			time.Sleep(300 * time.Millisecond)
		}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := fmt.Sprintf("left-%d-%d", i, time.Now().UnixNano())
			c := dialFixture(t)
			start := time.Now()
			tc.send(c, logThenNap(name, nap))
			c.CloseWrite()
			c.SetReadDeadline(time.Now().Add(2 * nap * time.Second))
			got, err := io.ReadAll(c)
			elapsed := time.Since(start)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("the connection was still open %v after the client left", elapsed)
			}
			if len(got) > 0 {
				t.Errorf("the client that left was sent %q; want nothing", got)
			}
			if elapsed > nap*time.Second*3/4 {
				t.Errorf("the request ran %v after its client left; want it cancelled", elapsed)
			}
			if n := logged(t, name); n != 0 {
				t.Errorf("the write of a request whose client left was kept (%d rows)", n)
			}
		})
	}

	// A client that stays gets its answer and its write.
	name := fmt.Sprintf("stayed-%d", time.Now().UnixNano())
	c := dialFixture(t)
	io.WriteString(c, logThenNap(name, 0.3)+"G")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 512)
	n, _ := io.ReadAtLeast(c, buf, len("HTTP/1.1 204"))
	if !strings.HasPrefix(string(buf[:n]), "HTTP/1.1 204 ") {
		t.Errorf("a client that stayed got %q, want 204", buf[:n])
	}
	if logged(t, name) != 1 {
		t.Errorf("the write of a client that stayed is missing")
	}
}

// TestBadTargetAnswered: a request target that cannot be decoded gets
// 400, as net/http answers it, not a closed connection.
func TestBadTargetAnswered(t *testing.T) {
	for _, target := range []string{"/authors%", "/authors%g1", "/auth\x01ors", "/authors?id=eq.\x7f"} {
		c := dialFixture(t)
		io.WriteString(c, "GET "+target+" HTTP/1.1\r\nHost: svc\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		got, _ := io.ReadAll(c)
		if !strings.HasPrefix(string(got), "HTTP/1.1 400 Bad Request\r\n") {
			t.Errorf("GET %q: got %q, want 400 Bad Request", target, got)
		}
	}
}
