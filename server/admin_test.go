package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svc-dev/svc/server"
	"github.com/svc-dev/svc/server/admin"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/sql/catalog"
)

// metricValue finds series (name and labels, as Prometheus's text format
// writes them) in a /metrics body.
func metricValue(body, series string) (float64, bool) {
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}

// scrape returns /metrics from admin.
func scrape(t *testing.T, adm *admin.Admin) string {
	t.Helper()
	w := do(adm, "GET", "/metrics")
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: %d %s", w.Code, w.Header().Get("Content-Type"))
	}
	return w.Body.String()
}

// TestAdminEndpoints runs the admin server beside a Runtime as svc-serve
// does: /live, /ready and /snapshot answer, and /metrics counts requests
// by kind, method and status class, their latency, the pool, the snapshot,
// the LISTEN connection and configuration reloads.
func TestAdminEndpoints(t *testing.T) {
	ctx := t.Context()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sources := config.Sources{Flags: map[string]string{"db-uri": fixture.authURI, "db-schemas": "test,other",
		"db-anon-role": "web_anon", "db-config": "false"}}
	cfg, err := reload.ResolveConfig(ctx, sources, log)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := dbexec.NewPool(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	snaps := reload.NewSnapshots(reload.SourceFor(cfg, log), log)
	metrics := admin.NewMetrics(pool, snaps)
	snaps.OnReload(metrics.SnapshotReloaded)
	if err := snaps.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	rt, err := server.NewRuntime(ctx, sources, cfg, pool, snaps, log, server.WithMetrics(metrics))
	if err != nil {
		t.Fatal(err)
	}
	adm := admin.New(pool, snaps, metrics, apierr.SVCNaming, log)

	for _, path := range []string{"/live", "/ready"} {
		if w := do(adm, "GET", path); w.Code != 200 || w.Body.Len() != 0 {
			t.Errorf("GET %s: %d %q", path, w.Code, w.Body)
		}
	}
	w := do(adm, "GET", "/snapshot")
	var info struct {
		Fingerprint      string     `json:"fingerprint"`
		FormatVersion    int        `json:"format_version"`
		GeneratorVersion string     `json:"generator_version"`
		Schemas          []string   `json:"schemas"`
		LoadedAt         *time.Time `json:"loaded_at"`
		Relations        int        `json:"relations"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &info); err != nil || w.Code != 200 {
		t.Fatalf("GET /snapshot: %d %s %v", w.Code, w.Body, err)
	}
	h := snaps.Current().Header
	if info.Fingerprint != h.Fingerprint || info.FormatVersion != snapshot.FormatVersion || info.GeneratorVersion != h.GeneratorVersion ||
		strings.Join(info.Schemas, ",") != "test,other" || info.Relations == 0 ||
		info.LoadedAt == nil || time.Since(*info.LoadedAt) > time.Minute {
		t.Errorf("GET /snapshot: %s", w.Body)
	}

	do(rt, "GET", "/books?id=eq.1")
	// A configuration reload builds a new Server, which must count too.
	metrics.ConfigReloaded(rt.ReloadConfig(ctx))
	do(rt, "GET", "/books?id=eq.2")
	do(rt, "GET", "/no_such_table")
	do(rt, "GET", "/rpc/add?a=1&b=2")
	do(rt, "GET", "/")

	body := scrape(t, adm)
	for series, want := range map[string]float64{
		`svc_http_requests_total{code="2xx",kind="relation",method="GET"}`:                 2,
		`svc_http_requests_total{code="4xx",kind="relation",method="GET"}`:                 1,
		`svc_http_requests_total{code="2xx",kind="function",method="GET"}`:                 1,
		`svc_http_requests_total{code="2xx",kind="root",method="GET"}`:                     1,
		`svc_http_requests_total{code="5xx",kind="relation",method="GET"}`:                 0,
		`svc_http_request_duration_seconds_count{kind="relation",method="GET"}`:            3,
		`svc_http_request_duration_seconds_bucket{kind="relation",method="GET",le="+Inf"}`: 3,
		`svc_snapshot_reloads_total{result="success"}`:                                     1,
		`svc_snapshot_reloads_total{result="failure"}`:                                     0,
		`svc_snapshot_last_reload_successful`:                                              1,
		`svc_snapshot_info{fingerprint="` + h.Fingerprint + `",format_version="` + strconv.Itoa(h.FormatVersion) +
			`",generator_version="` + h.GeneratorVersion + `"}`: 1,
		`svc_config_reloads_total{result="success"}`: 1,
		`svc_config_last_reload_successful`:          1,
		`svc_db_pool_max_connections`:                float64(cfg.DBPool),
		`svc_listener_connected`:                     0,
	} {
		if got, ok := metricValue(body, series); !ok || got != want {
			t.Errorf("%s = %v (found %v), want %v", series, got, ok, want)
		}
	}
	for _, series := range []string{"svc_db_pool_acquires_total", "svc_db_pool_total_connections",
		"svc_db_pool_acquire_duration_seconds_total", "svc_snapshot_load_duration_seconds",
		"svc_snapshot_loaded_timestamp_seconds"} {
		if v, ok := metricValue(body, series); !ok || v <= 0 {
			t.Errorf("%s = %v (found %v), want > 0", series, v, ok)
		}
	}
	for _, series := range []string{"svc_db_pool_idle_connections", "svc_db_pool_acquired_connections",
		"svc_db_pool_empty_acquires_total", "svc_db_pool_empty_acquire_wait_seconds_total", "svc_db_pool_canceled_acquires_total"} {
		if _, ok := metricValue(body, series); !ok {
			t.Errorf("%s missing", series)
		}
	}

	// A failed reload is counted and keeps the snapshot.
	snaps.SetSource(reload.FileSource{Path: filepath.Join(t.TempDir(), "missing.msgpack")})
	snaps.Reload(ctx)
	body = scrape(t, adm)
	if v, _ := metricValue(body, `svc_snapshot_reloads_total{result="failure"}`); v != 1 {
		t.Errorf("failed reloads %v, want 1", v)
	}
	if v, _ := metricValue(body, "svc_snapshot_last_reload_successful"); v != 0 {
		t.Errorf("last reload successful %v after a failure, want 0", v)
	}

	// The LISTEN connection's state.
	lctx, cancel := context.WithCancel(ctx)
	u, _ := url.Parse(fixture.authURI)
	q := u.Query()
	q.Set("application_name", "svc-listener-svc_admin_test")
	u.RawQuery = q.Encode()
	l := &reload.Listener{URI: u.String(), Channel: "svc_admin_test", Snapshots: snaps, Log: log,
		OnConnected: metrics.ListenerConnected}
	done := make(chan struct{})
	go func() { l.Run(lctx); close(done) }()
	waitMetric(t, adm, "svc_listener_connected", 1)
	cancel()
	<-done
	waitMetric(t, adm, "svc_listener_connected", 0)
}

// waitMetric polls /metrics until series has value want.
func waitMetric(t *testing.T, adm *admin.Admin, series string, want float64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, _ := metricValue(scrape(t, adm), series)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %v, want %v", series, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestReadyNeedsSnapshot answers 503 on /ready and /snapshot until a
// snapshot has loaded, then 200.
func TestReadyNeedsSnapshot(t *testing.T) {
	ctx := t.Context()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	path := filepath.Join(t.TempDir(), "snapshot.msgpack")
	pool, err := dbexec.NewPool(ctx, fixture.cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	snaps := reload.NewSnapshots(reload.FileSource{Path: path}, log)
	metrics := admin.NewMetrics(pool, snaps)
	snaps.OnReload(metrics.SnapshotReloaded)
	adm := admin.New(pool, snaps, metrics, apierr.SVCNaming, log)
	if snaps.Reload(ctx) == nil {
		t.Fatal("loaded a snapshot file that does not exist")
	}
	if w := do(adm, "GET", "/ready"); w.Code != 503 || w.Body.Len() != 0 {
		t.Errorf("GET /ready without a snapshot: %d %q", w.Code, w.Body)
	}
	if w := do(adm, "GET", "/snapshot"); w.Code != 503 || !strings.Contains(w.Body.String(), `"SVC002"`) {
		t.Errorf("GET /snapshot without a snapshot: %d %s", w.Code, w.Body)
	}
	if w := do(adm, "GET", "/live"); w.Code != 200 {
		t.Errorf("GET /live without a snapshot: %d", w.Code)
	}

	snap, err := catalog.Introspect(ctx, superConn(t), catalog.Options{Schemas: []string{"test"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snapshot.WriteFile(path, snap); err != nil {
		t.Fatal(err)
	}
	if err := snaps.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if w := do(adm, "GET", "/ready"); w.Code != 200 {
		t.Errorf("GET /ready with a snapshot: %d", w.Code)
	}
}

// TestReadyNeedsDatabase answers 503 on /ready when the pool cannot reach
// the database, though a snapshot is loaded.
func TestReadyNeedsDatabase(t *testing.T) {
	ctx := t.Context()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close() // nothing listens there now

	path := filepath.Join(t.TempDir(), "snapshot.msgpack")
	snap, err := catalog.Introspect(ctx, superConn(t), catalog.Options{Schemas: []string{"test"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snapshot.WriteFile(path, snap); err != nil {
		t.Fatal(err)
	}
	cfg := *fixture.cfg
	cfg.DBURI = "postgres://authenticator@" + closed + "/e2e?connect_timeout=1"
	pool, err := dbexec.NewPool(ctx, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	snaps := reload.NewSnapshots(reload.FileSource{Path: path}, log)
	if err := snaps.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	adm := admin.New(pool, snaps, admin.NewMetrics(pool, snaps), apierr.SVCNaming, log)
	start := time.Now()
	if w := do(adm, "GET", "/ready"); w.Code != 503 {
		t.Errorf("GET /ready with the database unreachable: %d", w.Code)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("GET /ready took %s", d)
	}
	if w := do(adm, "GET", "/live"); w.Code != 200 {
		t.Errorf("GET /live with the database unreachable: %d", w.Code)
	}
}
