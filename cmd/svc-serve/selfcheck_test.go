package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/svc-dev/svc/sql/pgtest"
)

// TestListenerHearsItself: a server whose LISTEN session goes through
// PgBouncer in transaction mode (db-uri at the pooler, no
// db-channel-uri) hears nothing, which it used to keep to itself while
// logging "listening for notifications". It sends itself a notification,
// and when that does not arrive says so: an error in the log and a
// problem in /health, each with the fix (db-channel-uri), and
// svc_listener_hears_notifications 0. It stays ready: it serves what it
// has. Given db-channel-uri, the same server hears itself: the metric is
// 1 and /health lists nothing.
func TestListenerHearsItself(t *testing.T) {
	if _, err := pgtest.FindPgBouncer(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	bouncer, err := pgtest.StartPgBouncer(t.Context(), authURI, []string{"serve_auth"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bouncer.Stop)
	for _, c := range []struct {
		name  string
		flags map[string]string
		hears bool
	}{
		{"through the pooler", map[string]string{"db-uri": bouncer.URI(authURI)}, false},
		{"db-channel-uri direct", map[string]string{"db-uri": bouncer.URI(authURI), "db-channel-uri": authURI}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			admin, port := adminAddress(t)
			flags := map[string]string{"admin-server-port": port, "admin-server-host": "127.0.0.1",
				"db-channel-enabled": "true", "db-channel": "svc_selfcheck_test"}
			for k, v := range c.flags {
				flags[k] = v
			}
			var log logBuffer
			startLogging(t, flags, &log)
			get := func(path string) (int, string) { return httpGet(t, "http://"+admin+path) }
			want := "svc_listener_hears_notifications 0\n"
			if c.hears {
				want = "svc_listener_hears_notifications 1\n"
			}
			waitUntil(t, "the metric says "+strings.TrimSpace(want), func() bool {
				_, metrics := get("/metrics")
				return strings.Contains(metrics, want)
			})
			_, body := get("/health")
			var health struct {
				Ready    bool `json:"ready"`
				Problems []struct{ Component, Problem, Fix string }
			}
			if err := json.Unmarshal([]byte(body), &health); err != nil {
				t.Fatalf("GET /health: %s", body)
			}
			if status, _ := get("/ready"); status != 200 || !health.Ready {
				t.Errorf("/ready %d, /health %s: want ready", status, body)
			}
			if c.hears {
				if len(health.Problems) != 0 || strings.Contains(log.String(), "does not hear") {
					t.Errorf("a server that hears itself reports a problem: %s\n%s", body, log.String())
				}
				return
			}
			if len(health.Problems) != 1 || health.Problems[0].Component != "listener" ||
				!strings.Contains(health.Problems[0].Fix, "db-channel-uri") {
				t.Errorf("GET /health: %s; want the listener's problem with its fix", body)
			}
			log.waitFor(t, `level=ERROR msg="the LISTEN session does not hear notifications: .*set db-channel-uri`)
		})
	}
}

// waitUntil polls ok until it holds, failing the test after a while (a
// bound on the wait, not a timing asserted).
func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 15s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// adminAddress is a free address for the admin server, and its port.
func adminAddress(t *testing.T) (addr, port string) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	ln.Close()
	_, port, _ = net.SplitHostPort(addr)
	return addr, port
}

// httpGet is GET url's status and body.
func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
