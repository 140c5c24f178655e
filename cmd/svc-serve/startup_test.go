package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/logging"
	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/sql/catalog"
)

// logBuffer collects a server's log lines; safe for the server writing
// while the test reads.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor waits until the log matches re, failing the test after a while.
func (b *logBuffer) waitFor(t *testing.T, re string) {
	t.Helper()
	pattern := regexp.MustCompile(re)
	deadline := time.Now().Add(15 * time.Second)
	for !pattern.MatchString(b.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("no log line matching %s in:\n%s", re, b.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStartupLines: at the default log level svc-serve says what it is
// starting (with which configuration file, naming and snapshot source),
// that it reached the database, the snapshot it serves and where it
// listens, as PostgREST does, and, when stopped, that it drains and that
// it stopped; nothing else.
func TestStartupLines(t *testing.T) {
	var logs logBuffer
	addr, stop := startLogging(t, nil, &logs)
	stop()
	for _, want := range []string{
		`level=NOTICE msg="starting svc-serve" version=\S+ config=none naming=svc snapshot="live introspection"`,
		`level=NOTICE msg="connected to the database" server="PostgreSQL 1\d[^"]*" database=\S+ role=serve_auth address=\S+`,
		`level=NOTICE msg="schema snapshot loaded in \d+ ms" source="live introspection" fingerprint=[0-9a-f]{12} dumped=\S+ schemas=serve_api relations=0 functions=1`,
		`level=NOTICE msg=listening address=` + regexp.QuoteMeta(addr),
		`level=NOTICE msg="stopping: no new connections; finishing the requests in flight" within=10s`,
		`level=NOTICE msg=stopped`,
	} {
		if !regexp.MustCompile(`(?m)^time=\S+ ` + want + `$`).MatchString(logs.String()) {
			t.Errorf("no line matching %s in:\n%s", want, logs.String())
		}
	}
	if n := strings.Count(logs.String(), "\n"); n != 6 {
		t.Errorf("%d lines at the default level, want 6:\n%s", n, logs.String())
	}
}

// TestStartupNamesItsSources: the first line names the configuration
// file and the snapshot file by their absolute paths, whatever directory
// svc-serve was started in, and the naming compat-names chooses.
func TestStartupNamesItsSources(t *testing.T) {
	dir := t.TempDir()
	snap, err := introspectServeAPI(t)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snapshot.WriteFile(filepath.Join(dir, "api.msgpack"), snap); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "svc.conf")
	text := "db-uri = \"" + authURI + "\"\ndb-schemas = \"serve_api\"\ndb-anon-role = \"serve_anon\"\nsnapshot = \"api.msgpack\"\n" +
		"server-host = \"127.0.0.1\"\nserver-port = 0\ndb-channel-enabled = false\n"
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	sources := config.Sources{File: conf}
	cfg, _, err := config.Load(sources)
	if err != nil {
		t.Fatal(err)
	}
	var logs logBuffer
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, sources, cfg, logging.NewLogger(&logs, cfg.LogLevel, cfg.LogFormat), func(string) { cancel() })
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := `level=NOTICE msg="starting svc-serve" version=\S+ config=` + regexp.QuoteMeta(conf) +
		` naming=svc snapshot="file ` + regexp.QuoteMeta(filepath.Join(dir, "api.msgpack")) + `"`
	if !regexp.MustCompile(`(?m)^time=\S+ ` + want + `$`).MatchString(logs.String()) {
		t.Errorf("no line matching %s in:\n%s", want, logs.String())
	}
}

// TestStartupWithoutDatabase: when the database refuses the connection,
// the log says why, without pgx's TLS fallback, and that it retries; the
// server still listens and answers 503.
func TestStartupWithoutDatabase(t *testing.T) {
	u, _ := url.Parse(authURI)
	u.User = url.User("no_such_role")
	var logs logBuffer
	addr, _ := startLogging(t, map[string]string{"db-uri": u.String()}, &logs)
	logs.waitFor(t, `level=ERROR msg="database connection failed; retrying" in=1s error=".*role \\"no_such_role\\" does not exist`)
	logs.waitFor(t, `level=ERROR msg="schema snapshot not loaded; requests are answered 503 until one is"`)
	if strings.Contains(logs.String(), "TLS") || strings.Contains(logs.String(), "keeping the current snapshot") {
		t.Errorf("misleading lines:\n%s", logs.String())
	}
	resp, err := http.Get("http://" + addr + "/rpc/nap?seconds=0")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Errorf("without a database: %d %s", resp.StatusCode, body)
	}
}

// TestMissingSchema: an exposed schema that does not exist does not stop
// the others being served; requests for it are answered as PostgREST 12
// answers them (404), and the log says so at start and on each reload.
func TestMissingSchema(t *testing.T) {
	var logs logBuffer
	channel := "svc_missing_schema_test"
	addr, _ := startLogging(t, map[string]string{"db-schemas": "serve_api,serve_apo",
		"db-channel-enabled": "true", "db-channel": channel}, &logs)
	warning := `level=NOTICE msg="exposed schema \\"serve_apo\\" does not exist \(db-schemas\); serving the others, ` +
		`and answering requests for it as for an empty schema; did you mean \\"serve_api\\" for \\"serve_apo\\"\?"`
	logs.waitFor(t, warning)
	logs.waitFor(t, `msg="listening for notifications"`)

	get := func(path, profile string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
		if profile != "" {
			req.Header.Set("Accept-Profile", profile)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get("/rpc/nap?seconds=0", ""); code != 200 {
		t.Errorf("the schema that exists: %d %s", code, body)
	}
	if code, body := get("/rpc/nap?seconds=0", "serve_apo"); code != 404 || !strings.Contains(body, `"code":"SVC202"`) {
		t.Errorf("a function of the missing schema: %d %s", code, body)
	}
	if code, body := get("/things", "serve_apo"); code != 404 || !strings.Contains(body, `"code":"42P01"`) ||
		!strings.Contains(body, `relation \"serve_apo.things\" does not exist`) {
		t.Errorf("a relation of the missing schema: %d %s", code, body)
	}

	// The description of an empty schema: no routes but the root's own.
	if code, body := get("/", "serve_apo"); code != 200 || !strings.Contains(body, `"definitions":{}`) || strings.Contains(body, "/rpc/nap") {
		t.Errorf("the root of the missing schema: %d %s", code, body)
	}

	conn, err := pgx.Connect(context.Background(), authURI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "notify "+channel+", 'reload schema'"); err != nil {
		t.Fatal(err)
	}
	logs.waitFor(t, `(?s)`+warning+`.*`+warning)
}

// introspectServeAPI takes a snapshot of the test schema serve_api.
func introspectServeAPI(t *testing.T) (*snapshot.Snapshot, error) {
	conn, err := pgx.Connect(t.Context(), authURI)
	if err != nil {
		return nil, err
	}
	defer conn.Close(t.Context())
	return catalog.Introspect(t.Context(), conn, catalog.Options{Schemas: []string{"serve_api"}})
}
