package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/logging"
	"github.com/svc-dev/svc/sql/pgtest"
)

// authURI connects as the authenticator to the shared test database;
// superURI as the superuser, for what tests set up.
var authURI, superURI string

func TestMain(m *testing.M) {
	if os.Getenv(runAsServe) != "" {
		// A test's process of its own (process_test.go): svc-serve itself.
		main()
		return
	}
	os.Exit(pgtest.Main(m, func(uri string) error {
		authURI, superURI = pgtest.AsUser(uri, "serve_auth"), uri
		return pgtest.Exec(context.Background(), uri, `
			do $$ begin
			  if not exists (select from pg_roles where rolname = 'serve_anon') then create role serve_anon nologin; end if;
			  if not exists (select from pg_roles where rolname = 'serve_auth') then create role serve_auth login noinherit; end if;
			end $$;
			grant serve_anon to serve_auth;
			create schema if not exists serve_api;
			grant usage on schema serve_api to serve_anon;
			create or replace function serve_api.nap(seconds float8) returns text language sql as
			  $f$ select pg_sleep(seconds)::text || 'rested' $f$;
			grant execute on function serve_api.nap(float8) to serve_anon;
			create schema if not exists serve_replica;
			grant usage on schema serve_replica to serve_anon;
			create or replace function serve_replica.standby() returns boolean stable language sql as
			  $f$ select pg_is_in_recovery() $f$;`)
	}))
}

// start runs serve with flags over the test database until the returned
// stop is called; it returns the address serve listens on.
func start(t *testing.T, flags map[string]string) (addr string, stop func() error) {
	t.Helper()
	return startLogging(t, flags, io.Discard)
}

// startLogging is start with the server's log written to w, at the
// configured log-level, as svc-serve writes it.
func startLogging(t *testing.T, flags map[string]string, w io.Writer) (addr string, stop func() error) {
	t.Helper()
	all := map[string]string{"db-uri": authURI, "db-schemas": "serve_api", "db-anon-role": "serve_anon",
		"server-host": "127.0.0.1", "server-port": "0", "db-channel-enabled": "false"}
	for k, v := range flags {
		all[k] = v
	}
	sources := config.Sources{Flags: all}
	cfg, _, err := config.Load(sources)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, sources, cfg, logging.NewLogger(w, cfg.LogLevel, cfg.LogFormat), func(a string) { ready <- a })
	}()
	select {
	case addr = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("serve: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("serve did not become ready")
	}
	var stopped bool
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		return <-done
	}
	t.Cleanup(func() { stop() })
	return addr, stop
}

// TestGracefulShutdown stops the server while a request is in flight: the
// request completes, serve returns cleanly, and the port is closed.
func TestGracefulShutdown(t *testing.T) {
	addr, stop := start(t, nil)
	result := make(chan string, 1)
	go func() {
		resp, err := http.Get("http://" + addr + "/rpc/nap?seconds=0.5")
		if err != nil {
			result <- err.Error()
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		result <- strconv.Itoa(resp.StatusCode) + " " + string(body)
	}()
	time.Sleep(150 * time.Millisecond) // the request is at the database by now
	if err := stop(); err != nil {
		t.Errorf("serve returned %v", err)
	}
	if got := <-result; got != `200 "rested"` {
		t.Errorf("in-flight request: %s, want 200 \"rested\"", got)
	}
	if conn, err := net.Dial("tcp", addr); err == nil {
		conn.Close()
		t.Error("still accepting connections after shutdown")
	}
}

// TestReuseport lets a second process bind the port of a running one, as
// a restart does, only with server-reuseport.
func TestReuseport(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	flags := map[string]string{"server-port": port, "server-reuseport": "true"}
	first, _ := start(t, flags)
	second, _ := start(t, flags)
	if first != second {
		t.Fatalf("listening on %s and %s, want one port", first, second)
	}
	cfg, _, _ := config.Load(config.Sources{Flags: map[string]string{"server-host": "127.0.0.1", "server-port": port}})
	if ln, err := listen(context.Background(), cfg); err == nil {
		ln.Close()
		t.Error("bound a taken port without server-reuseport")
	}
}

// TestUnixSocket serves over a Unix socket with the configured mode.
func TestUnixSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "svc.sock")
	start(t, map[string]string{"server-unix-socket": path, "server-unix-socket-mode": "600"})
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %o, want 600", fi.Mode().Perm())
	}
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", path)
	}}}
	resp, err := client.Get("http://svc/rpc/nap?seconds=0")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `"rested"` {
		t.Errorf("over the socket: %d %s", resp.StatusCode, body)
	}
}

// TestConnectionLimits: headers past server-max-header-bytes are answered
// 431, and a client trickling its request (slowloris) is cut off after
// server-read-timeout instead of holding the connection.
func TestConnectionLimits(t *testing.T) {
	addr, _ := start(t, map[string]string{"server-max-header-bytes": "4096", "server-read-timeout": "1"})
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/rpc/nap?seconds=0", nil)
	req.Header.Set("X-Padding", strings.Repeat("x", 16<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("16 KiB of headers: %d, want 431", resp.StatusCode)
	}

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET /rpc/nap?seconds=0 HTTP/1.1\r\nHost: svc\r\n") // never finished
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	// The server closes it (EOF) long before this deadline would fire.
	if _, err := io.ReadAll(conn); err != nil {
		t.Fatalf("the server held a trickling connection open: %v", err)
	}
}
