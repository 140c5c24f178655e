package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server"
	"github.com/svc-dev/svc/server/admin"
	"github.com/svc-dev/svc/server/auth"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/logging"
	"github.com/svc-dev/svc/server/reload"
)

// observed is a server over the shared fixture, built as svc-serve builds
// one (metrics, the snapshot reload hook), logging to a buffer. Requests go
// straight to ServeHTTP, so a request's log lines are written by the time
// it returns.
type observed struct {
	cfg     *config.Config
	srv     *server.Server
	pool    *pgxpool.Pool
	jwt     *auth.Verifier
	snaps   *reload.Snapshots
	metrics *admin.Metrics
	logs    *bytes.Buffer
}

// newObserved starts an observed server with settings (configuration keys)
// over the fixture's; log-level defaults to info.
func newObserved(t testing.TB, settings map[string]string) *observed {
	t.Helper()
	flags := map[string]string{"db-uri": fixture.cfg.DBURI, "db-schemas": strings.Join(fixture.cfg.DBSchemas, ","),
		"db-anon-role": fixture.cfg.DBAnonRole, "log-level": "info"}
	maps.Copy(flags, settings)
	cfg, warnings, err := config.Load(config.Sources{Flags: flags})
	if err != nil || len(warnings) > 0 {
		t.Fatalf("settings %v: %v %v", settings, err, warnings)
	}
	o := &observed{cfg: cfg, logs: &bytes.Buffer{}}
	log := logging.NewLogger(o.logs, cfg.LogLevel, cfg.LogFormat)
	pool, err := dbexec.NewPool(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	o.snaps = reload.NewSnapshots(reload.SourceFor(cfg, log), log)
	o.metrics = admin.NewMetrics(pool, o.snaps)
	o.snaps.OnReload(o.metrics.SnapshotReloaded)
	if err := o.snaps.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	jwt, err := server.NewVerifier(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	o.pool, o.jwt = pool, jwt
	o.srv = server.New(cfg, pool, o.snaps, jwt, log, server.WithMetrics(o.metrics))
	return o
}

// do serves one request; header holds name, value pairs.
func do(h http.Handler, method, target string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// lines returns the text log lines whose message is msg.
func (o *observed) lines(msg string) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(o.logs.Bytes()))
	for sc.Scan() {
		if strings.Contains(sc.Text(), " msg="+msg+" ") {
			out = append(out, sc.Text())
		}
	}
	return out
}

var timingRE = regexp.MustCompile(`^jwt;dur=\d+\.\d, parse;dur=\d+\.\d, plan;dur=\d+\.\d, transaction;dur=\d+\.\d, response;dur=\d+\.\d$`)

// TestServerTiming adds Server-Timing only under server-timing-enabled,
// with PostgREST's figures: the token's verification, parsing, the rest of
// the time before the database, the transaction and the response, for
// every method and the root (its document's building standing for the
// transaction, db-root-spec's call being one); OPTIONS, answered without
// the database, has no transaction; a request refused before the
// database has only the first three.
func TestServerTiming(t *testing.T) {
	plain := newObserved(t, nil)
	if w := do(plain.srv, "GET", "/books?id=eq.1"); w.Code != 200 || w.Header().Get("Server-Timing") != "" {
		t.Errorf("without server-timing-enabled: %d, Server-Timing %q", w.Code, w.Header().Get("Server-Timing"))
	}

	timed := newObserved(t, map[string]string{"server-timing-enabled": "true"})
	requests := []struct {
		method, target, body string
		status               int
	}{
		{"GET", "/books?id=eq.1", "", 200},
		{"GET", "/rpc/add?a=1&b=2", "", 200},
		{"PUT", "/w_items?id=eq.-77", `{"id":-77,"name":"timed"}`, 204},
		{"PATCH", "/w_items?id=eq.-77", `{"qty":2}`, 204},
		{"DELETE", "/w_items?id=eq.-77", "", 204},
		{"HEAD", "/", "", 200},
		{"GET", "/", "", 200},
	}
	for _, c := range requests {
		req := httptest.NewRequest(c.method, c.target, strings.NewReader(c.body))
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		w := httptest.NewRecorder()
		timed.srv.ServeHTTP(w, req)
		if got := w.Header().Get("Server-Timing"); w.Code != c.status || !timingRE.MatchString(got) {
			t.Errorf("%s %s: %d, Server-Timing %q; body %s", c.method, c.target, w.Code, got, w.Body)
		}
	}
	answeredRE := regexp.MustCompile(`^jwt;dur=\d+\.\d, parse;dur=\d+\.\d, plan;dur=\d+\.\d, response;dur=\d+\.\d$`)
	for _, target := range []string{"/books", "/rpc/add", "/"} {
		if w := do(timed.srv, "OPTIONS", target); w.Code != 200 || !answeredRE.MatchString(w.Header().Get("Server-Timing")) {
			t.Errorf("OPTIONS %s: %d, Server-Timing %q", target, w.Code, w.Header().Get("Server-Timing"))
		}
	}
	rootSpec := newObserved(t, map[string]string{"server-timing-enabled": "true", "db-root-spec": "oa_root"})
	for _, accept := range []string{"*/*", "application/json"} {
		if w := do(rootSpec.srv, "GET", "/", "Accept", accept); w.Code != 200 || !timingRE.MatchString(w.Header().Get("Server-Timing")) {
			t.Errorf("db-root-spec, Accept %s: %d, Server-Timing %q", accept, w.Code, w.Header().Get("Server-Timing"))
		}
	}
	w := do(timed.srv, "GET", "/books?select=nope(")
	if got := w.Header().Get("Server-Timing"); w.Code != 400 || !regexp.MustCompile(`^jwt;dur=\d+\.\d, parse;dur=\d+\.\d, plan;dur=\d+\.\d$`).MatchString(got) {
		t.Errorf("refused request: %d, Server-Timing %q", w.Code, got)
	}
}

// startedCtx is a request context that tells when its request began, as
// server/http1's does.
type startedCtx struct {
	context.Context
	start time.Time
}

func (c startedCtx) Started() time.Time { return c.start }

// TestTimedFromHeadArrival: a request whose context tells when its head
// began to arrive is logged with the time since then, but its
// Server-Timing counts only the server's own time: a head that took a
// second to arrive is the client's second, not the plan's.
func TestTimedFromHeadArrival(t *testing.T) {
	o := newObserved(t, map[string]string{"server-timing-enabled": "true"})
	req := httptest.NewRequest("GET", "/books?id=eq.1", nil)
	req = req.WithContext(startedCtx{req.Context(), time.Now().Add(-time.Second)})
	w := httptest.NewRecorder()
	o.srv.ServeHTTP(w, req)
	timing := w.Header().Get("Server-Timing")
	if w.Code != 200 || !timingRE.MatchString(timing) {
		t.Fatalf("%d, Server-Timing %q", w.Code, timing)
	}
	for _, part := range strings.Split(timing, ", ") {
		name, dur, _ := strings.Cut(part, ";dur=")
		if ms, err := strconv.ParseFloat(dur, 64); err != nil || ms >= 1000 {
			t.Errorf("Server-Timing %s is %s ms: it counts the head's arrival", name, dur)
		}
	}
	lines := o.lines("request")
	if len(lines) != 1 {
		t.Fatalf("access log:\n%s", strings.Join(lines, "\n"))
	}
	m := regexp.MustCompile(` duration=(\S+)`).FindStringSubmatch(lines[0])
	if m == nil {
		t.Fatalf("no duration logged: %s", lines[0])
	}
	if d, err := time.ParseDuration(m[1]); err != nil || d < time.Second {
		t.Errorf("logged %q, want a duration of at least the second since the head began", lines[0])
	}
}

// TestTraceHeader echoes server-trace-header's request header, on errors
// too, and logs it with the request.
func TestTraceHeader(t *testing.T) {
	o := newObserved(t, map[string]string{"server-trace-header": "x-request-id"})
	for _, target := range []string{"/books?id=eq.1", "/no_such_table"} {
		w := do(o.srv, "GET", target, "X-Request-Id", "req-"+target)
		if got := w.Header().Get("X-Request-Id"); got != "req-"+target {
			t.Errorf("GET %s: X-Request-Id %q echoed, want %q", target, got, "req-"+target)
		}
	}
	if w := do(o.srv, "GET", "/books?id=eq.1"); w.Header().Values("X-Request-Id") != nil {
		t.Errorf("no trace header sent, got %q", w.Header().Values("X-Request-Id"))
	}
	if lines := o.lines("request"); len(lines) != 3 || !strings.Contains(lines[0], `trace="req-/books?id=eq.1"`) {
		t.Errorf("access log:\n%s", strings.Join(lines, "\n"))
	}
	if w := do(newObserved(t, nil).srv, "GET", "/books?id=eq.1", "X-Request-Id", "x"); w.Header().Get("X-Request-Id") != "" {
		t.Error("trace header echoed without server-trace-header")
	}
}

// TestAccessLog writes one line per request at PostgREST's levels (info,
// warn for 4xx), with method, target, status, duration and body size; at
// log-level warn only the failed request is logged.
func TestAccessLog(t *testing.T) {
	o := newObserved(t, nil)
	ok := do(o.srv, "GET", "/books?id=eq.1")
	do(o.srv, "GET", "/no_such_table")
	do(o.srv, "HEAD", "/books")
	gone, cancel := context.WithCancel(t.Context())
	cancel() // a client that went away before the answer
	if v := serveAbandoned(o.srv, httptest.NewRequest("GET", "/books", nil).WithContext(gone)); v != http.ErrAbortHandler {
		t.Errorf("an abandoned request left unanswered: panic %v, want http.ErrAbortHandler (nothing sent, the connection closed)", v)
	}
	lines := o.lines("request")
	if len(lines) != 4 {
		t.Fatalf("%d access log lines, want 4:\n%s", len(lines), o.logs)
	}
	wantOK := regexp.MustCompile(`level=INFO msg=request method=GET path="/books\?id=eq.1" status=200 duration=[0-9.]+[µm]?s bytes=` +
		strconv.Itoa(ok.Body.Len()) + `$`)
	if !wantOK.MatchString(lines[0]) {
		t.Errorf("200 line: %s", lines[0])
	}
	if !regexp.MustCompile(`level=WARN msg=request method=GET path=/no_such_table status=404 .* bytes=[1-9]`).MatchString(lines[1]) {
		t.Errorf("404 line: %s", lines[1])
	}
	if !strings.Contains(lines[2], "method=HEAD path=/books status=200 ") || !strings.HasSuffix(lines[2], " bytes=0") {
		t.Errorf("HEAD line: %s", lines[2])
	}
	if !strings.Contains(lines[3], "level=WARN msg=request method=GET path=/books status=499 ") {
		t.Errorf("abandoned request's line: %s", lines[3])
	}
	if q := o.lines("query"); len(q) != 0 {
		t.Errorf("statements logged without log-query: %v", q)
	}

	warn := newObserved(t, map[string]string{"log-level": "warn"})
	do(warn.srv, "GET", "/books?id=eq.1")
	do(warn.srv, "GET", "/no_such_table")
	if lines := warn.lines("request"); len(lines) != 1 || !strings.Contains(lines[0], "status=404") {
		t.Errorf("at log-level warn: %v", lines)
	}
}

// TestLogQuery logs the main statement under log-query = main-query, in a
// line of its own before the request's.
func TestLogQuery(t *testing.T) {
	o := newObserved(t, map[string]string{"log-query": "main-query"})
	do(o.srv, "GET", "/books?select=title&id=eq.1")
	do(o.srv, "GET", "/no_such_table") // refused before the database: no statement
	queries := o.lines("query")
	if len(queries) != 1 || !strings.Contains(queries[0], `\"test\".\"books\"`) || strings.Contains(queries[0], "set_config") {
		t.Fatalf("query lines: %v", queries)
	}
	all := o.logs.String()
	if strings.Index(all, "msg=query") > strings.Index(all, "msg=request") {
		t.Error("the query line comes after its request's line")
	}
}

// TestJSONLogFormat writes one JSON object per line under log-format json.
func TestJSONLogFormat(t *testing.T) {
	o := newObserved(t, map[string]string{"log-format": "json", "log-query": "main-query"})
	w := do(o.srv, "GET", "/books?id=eq.1")
	var requests int
	sc := bufio.NewScanner(o.logs)
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("not JSON: %s: %v", sc.Text(), err)
		}
		if line["msg"] == "request" {
			requests++
			if line["level"] != "INFO" || line["method"] != "GET" || line["path"] != "/books?id=eq.1" ||
				line["status"] != float64(200) || line["bytes"] != float64(w.Body.Len()) || line["duration"] == nil {
				t.Errorf("request line: %s", sc.Text())
			}
		}
	}
	if requests != 1 {
		t.Errorf("%d request lines, want 1", requests)
	}
}

// serveAbandoned serves r, whose client has left, and returns what the
// handler panicked with.
func serveAbandoned(h http.Handler, r *http.Request) (v any) {
	defer func() { v = recover() }()
	h.ServeHTTP(httptest.NewRecorder(), r)
	return nil
}

// TestAccessLogSaysWhy401: the line of a request refused 401 says why,
// with what only the log may see: the token's bad signature, when it
// expired, the audience it names.
func TestAccessLogSaysWhy401(t *testing.T) {
	secret := strings.Repeat("s", 32)
	o := newObserved(t, map[string]string{"jwt-secret": secret, "jwt-aud": "svc-api"})
	sign := func(key string, claims jwt.MapClaims) string {
		token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(key))
		if err != nil {
			t.Fatal(err)
		}
		return "Bearer " + token
	}
	for _, c := range []struct {
		auth, reason string
	}{
		{sign(strings.Repeat("x", 32), jwt.MapClaims{"role": "web_anon"}),
			`reason="JWT cryptographic operation failed: bad signature: the token was not signed with the configured key (jwt-secret, jwt-jwks-url)"`},
		{sign(secret, jwt.MapClaims{"role": "web_anon", "exp": 1700000000}), `reason="JWT expired: expired at 2023-11-14T22:13:20Z"`},
		{sign(secret, jwt.MapClaims{"role": "web_anon", "aud": "other"}), `reason="JWT not in audience: aud \"other\" does not name jwt-aud \"svc-api\""`},
	} {
		if w := do(o.srv, "GET", "/books?id=eq.1", "Authorization", c.auth); w.Code != http.StatusUnauthorized {
			t.Errorf("%s: %d %s", c.reason, w.Code, w.Body)
		}
		lines := o.lines("request")
		if last := lines[len(lines)-1]; !strings.Contains(last, "status=401 ") || !strings.HasSuffix(last, " "+c.reason) {
			t.Errorf("401 line: %s\nwant it to end with %s", last, c.reason)
		}
	}
	if w := do(o.srv, "GET", "/books?id=eq.1"); w.Code != http.StatusOK {
		t.Fatalf("anonymous: %d", w.Code)
	}
	if lines := o.lines("request"); strings.Contains(lines[len(lines)-1], "reason=") {
		t.Errorf("a line with nothing refused has a reason: %s", lines[len(lines)-1])
	}
}
