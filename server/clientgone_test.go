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

	"github.com/svc-dev/svc/server/internal/e2efixture"
)

// logThenNap is a raw POST of /rpc/log_then_nap, which writes name to
// rpc_log and then sleeps.
func logThenNap(name string, seconds float64) string {
	body := fmt.Sprintf(`{"name":%q,"seconds":%g}`, name, seconds)
	return fmt.Sprintf("POST /rpc/log_then_nap HTTP/1.1\r\nHost: svc\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}

// dialServer connects to the server at base.
func dialServer(t *testing.T, base string) *net.TCPConn {
	t.Helper()
	u, _ := url.Parse(base)
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*net.TCPConn)
}

// logged counts the rows of rpc_log named name.
func logged(t *testing.T, name string) int { return e2efixture.Logged(t, fixture.superURI, name) }

// awaitNoNap waits up to limit until no session runs log_then_nap: the
// statement of a request whose client left must be cancelled in
// PostgreSQL, not left to finish (and commit) on its own.
func awaitNoNap(t *testing.T, limit time.Duration) {
	t.Helper()
	db := superConn(t)
	for deadline := time.Now().Add(limit); ; {
		var running int
		if err := db.QueryRow(t.Context(), "select count(*) from pg_stat_activity where state = 'active' and "+
			"query like '%log_then_nap%' and pid <> pg_backend_pid()").Scan(&running); err != nil {
			t.Fatal(err)
		}
		if running == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("log_then_nap still runs %v after its client left", limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestClientLeavingGetsNoSuccess: a client that leaves while its write
// runs (half-closing, as a client that gives up does) has the write
// cancelled and rolled back, and is sent nothing: no 200 with an empty
// body for work that was undone, whatever the client sent besides (one
// byte, a pipelined request, bytes that came once the request ran):
// net/http's server stopped watching once a byte past the request came.
func TestClientLeavingGetsNoSuccess(t *testing.T) {
	const nap = 5 // seconds; a request that is not cancelled takes as long
	base := fixture.url
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
			c := dialServer(t, base)
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
			awaitNoNap(t, nap*time.Second)
			if n := logged(t, name); n != 0 {
				t.Errorf("the write of a request whose client left was kept (%d rows)", n)
			}
		})
	}

	// A client that stays gets its answer and its write.
	name := fmt.Sprintf("stayed-%d", time.Now().UnixNano())
	c := dialServer(t, base)
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

// TestClientLeavingPreparedPath: on a connection where the request's
// statements are prepared already (one connection in the pool, and a
// first call to prepare them), a client that leaves has its write
// cancelled in PostgreSQL, not only abandoned: closing the connection
// alone would let the statement run on and its transaction commit.
func TestClientLeavingPreparedPath(t *testing.T) {
	base := serverWith(t, map[string]string{"db-pool": "1"})
	u, _ := url.Parse(base)
	dial := func() *net.TCPConn {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c.(*net.TCPConn)
	}
	const nap = 2
	for i, leave := range []bool{false, true} {
		name := fmt.Sprintf("prepared-%d-%d", i, time.Now().UnixNano())
		c := dial()
		seconds := 0.0
		if leave {
			seconds = nap
		}
		io.WriteString(c, logThenNap(name, seconds))
		if !leave {
			buf := make([]byte, 512)
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if n, _ := io.ReadAtLeast(c, buf, len("HTTP/1.1 204")); !strings.HasPrefix(string(buf[:n]), "HTTP/1.1 204 ") {
				t.Fatalf("the call preparing the statements got %q, want 204", buf[:n])
			}
			continue
		}
		time.Sleep(200 * time.Millisecond)
		c.CloseWrite()
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if got, _ := io.ReadAll(c); len(got) > 0 {
			t.Errorf("the client that left was sent %q; want nothing", got)
		}
		awaitNoNap(t, nap*time.Second*3/4)
		if n := logged(t, name); n != 0 {
			t.Errorf("the write of a client that left was committed once its statement ended (%d rows)", n)
		}
	}
}

// TestBadTargetAnswered: a request target that cannot be decoded gets
// 400, as net/http answers it, not a closed connection.
func TestBadTargetAnswered(t *testing.T) {
	for _, target := range []string{"/authors%", "/authors%g1", "/auth\x01ors", "/authors?id=eq.\x7f"} {
		c := dialServer(t, fixture.url)
		io.WriteString(c, "GET "+target+" HTTP/1.1\r\nHost: svc\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		got, _ := io.ReadAll(c)
		if !strings.HasPrefix(string(got), "HTTP/1.1 400 Bad Request\r\n") {
			t.Errorf("GET %q: got %q, want 400 Bad Request", target, got)
		}
	}
}
