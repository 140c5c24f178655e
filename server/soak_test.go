package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/sql/pgtest"
)

// The soak's sizes. The pool is smaller than the number of clients so
// that it fills up, and a leaked connection would show above it.
const (
	soakPool    = 4
	soakClients = 8
	// soakGoroutineMargin is how many goroutines above the warm baseline
	// the quiet end may run: a scrape, a ready probe or a closing
	// connection may be in flight, but a goroutine leaked per fault (dozens
	// of faults) would show. The end is awaited until within
	// soakGoroutineSettled of the baseline, where it comes back to within
	// half a second (connections the load closed finish closing).
	soakGoroutineMargin  = 10
	soakGoroutineSettled = 2
)

// TestSoak runs svc-serve as a process under concurrent requests while
// faults hit it: its database sessions are terminated every 2 s, it is
// told to reload its schema or its configuration every second, and its
// database restarts once midway. Requests failing meanwhile are expected
// and only counted; what is asserted is the end state once the load
// stops: the process still serves and reloads, and has leaked neither
// goroutines nor database sessions. SVC_SOAK_SECONDS sets the length of
// the load (15 s) for a longer run by hand; deploy/bench/run.sh with
// FAULTS=1 is the long soak, with memory figures.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("a soak of 15 s or more")
	}
	length := 15 * time.Second
	if s := os.Getenv("SVC_SOAK_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 4 {
			t.Fatalf("SVC_SOAK_SECONDS=%q: want a number of seconds, at least 4", s)
		}
		length = time.Duration(n) * time.Second
	}
	// A cluster of its own: restarting the shared fixture's would fail
	// the other tests.
	cluster, uri := faultCluster(t)
	adminPort := freePort(t)
	api := processWith(t, map[string]string{"db-uri": uri, "db-schemas": "api", "db-anon-role": "web_anon",
		"db-pool": strconv.Itoa(soakPool), "db-pool-acquisition-timeout": "2",
		"admin-server-host": "127.0.0.1", "admin-server-port": adminPort})
	probe := soakProbe{api: api, admin: "http://127.0.0.1:" + adminPort, superURI: cluster.URI,
		client: &http.Client{Timeout: 5 * time.Second}}
	defer probe.client.CloseIdleConnections()

	// Warm up so the pool holds its connections, then close the clients'
	// connections (as at the end) and take the baseline.
	load := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: soakClients}}
	var warm soakCounts
	runClients(context.Background(), load, api, 5, &warm)
	load.CloseIdleConnections()
	base := probe.sample(t)
	if base.goroutines < 0 || warm.byStatus[200] == 0 {
		t.Fatalf("no baseline: %s, answers %v", base, warm.byStatus)
	}
	t.Logf("baseline: %s", base)

	ctx, cancel := context.WithTimeout(context.Background(), length)
	defer cancel()
	var counts soakCounts
	var wg sync.WaitGroup
	wg.Go(func() { runClients(ctx, load, api, 0, &counts) })
	var faults soakFaults
	wg.Go(func() { faults.run(ctx, cluster, length/2) })
	start := time.Now()
	for ctx.Err() == nil {
		t.Logf("%4.0fs %s", time.Since(start).Seconds(), probe.sample(t))
		select {
		case <-ctx.Done():
		case <-time.After(3 * time.Second):
		}
	}
	wg.Wait()
	load.CloseIdleConnections()
	t.Logf("answers by status (0: no answer) %v; faults: %d sessions terminated, %d notifications (%d failed), %d restarts",
		counts.byStatus, faults.terminated.Load(), faults.notified.Load(), faults.notifyFailed.Load(), faults.restarts.Load())
	if faults.resumeErr != nil {
		t.Fatalf("the database did not come back: %v", faults.resumeErr)
	}
	if counts.internal > 0 {
		// A fault is the database's, answered 503 (or its SQLSTATE); an
		// internal error means a panic, or a driver error SVC did not
		// recognise as a lost connection. The server log has which.
		t.Errorf("%d requests answered 500 SVCX00 (a panic, or a database failure taken for an internal error)", counts.internal)
	}

	// The quiet end: sessions cut at the last fault are noticed on next
	// use, and a listener cut then reconnects; wait for that rather than
	// for a fixed time.
	var end soakSample
	deadline := time.Now().Add(10 * time.Second)
	for {
		end = probe.sample(t)
		if end.settled(base) || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("end:      %s", end)
	if end.live != 200 || end.ready != 200 || end.items != 200 {
		t.Errorf("after the faults: /live %d, /ready %d, GET /items %d; want 200 each", end.live, end.ready, end.items)
	}
	if end.goroutines < 0 || end.goroutines > base.goroutines+soakGoroutineMargin {
		t.Errorf("goroutines: %d at the end, %d at the start: leaked", end.goroutines, base.goroutines)
	}
	if end.pooled < 0 || end.pooled > soakPool || end.listening != 1 {
		t.Errorf("svc's sessions at the end: %d besides the LISTEN one (db-pool %d), %d listening (want 1)",
			end.pooled, soakPool, end.listening)
	}
	probe.checkReload(t)
}

// soakCounts counts the load's answers.
type soakCounts struct {
	mu       sync.Mutex
	byStatus map[int]int // 0: no answer (refused, reset, timed out)
	internal int         // 500 SVCX00: a panic or an unrecognised driver error
}

func (c *soakCounts) add(status int, code string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byStatus == nil {
		c.byStatus = map[int]int{}
	}
	c.byStatus[status]++
	if status == 500 && code == "SVCX00" {
		c.internal++
	}
}

// runClients runs soakClients clients doing GETs until ctx ends, or each
// has done n (when n > 0).
func runClients(ctx context.Context, client *http.Client, api string, n int, counts *soakCounts) {
	var wg sync.WaitGroup
	for range soakClients {
		wg.Go(func() {
			for i := 0; (n == 0 || i < n) && ctx.Err() == nil; i++ {
				status, code := soakGet(ctx, client, api+"/items?order=id")
				if ctx.Err() == nil { // not cut off by the end of the load
					counts.add(status, code)
				}
			}
		})
	}
	wg.Wait()
}

// soakGet returns the status of GET url (0 when there is no answer) and
// the SVC code of an error.
func soakGet(ctx context.Context, client *http.Client, url string) (int, string) {
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := client.Do(req)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var e struct {
		Code string `json:"code"`
	}
	if resp.StatusCode >= 400 {
		json.Unmarshal(body, &e)
	}
	return resp.StatusCode, e.Code
}

// soakFaults runs the faults and counts them.
type soakFaults struct {
	terminated, notified, notifyFailed, restarts atomic.Int64
	resumeErr                                    error // read after run returns
}

// run, until ctx ends: every second a NOTIFY, alternately 'reload schema'
// and 'reload config'; every other second pg_terminate_backend on every
// session of svc's role (pool, LISTEN and reload connections alike); and
// once, after restartAfter, a fast restart of the database. Faults run
// one at a time, so none overlaps the restart.
func (f *soakFaults) run(ctx context.Context, cluster *pgtest.Cluster, restartAfter time.Duration) {
	restartAt := time.Now().Add(restartAfter)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if f.restarts.Load() == 0 && time.Now().After(restartAt) {
			f.restarts.Add(1)
			cluster.Halt()
			if f.resumeErr = cluster.Resume(context.Background()); f.resumeErr != nil {
				return
			}
			continue
		}
		f.notified.Add(1)
		if notify(ctx, cluster.URI, [2]string{"reload schema", "reload config"}[i%2]) != nil {
			f.notifyFailed.Add(1)
		}
		if i%2 == 1 {
			withSuper(ctx, cluster.URI, func(ctx context.Context, c *pgx.Conn) error {
				var n int64
				err := c.QueryRow(ctx, `select count(*) filter (where pg_terminate_backend(pid))
					from pg_stat_activity where application_name = 'svc'`).Scan(&n)
				f.terminated.Add(n)
				return err
			})
		}
	}
}

// withSuper runs fn over a connection of its own as the cluster's
// superuser, within 3 s: a lasting connection would not survive the
// restart.
func withSuper(ctx context.Context, uri string, fn func(context.Context, *pgx.Conn) error) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, uri)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return fn(ctx, conn)
}

// notify sends payload on svc's channel.
func notify(ctx context.Context, uri, payload string) error {
	return withSuper(ctx, uri, func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, "select pg_notify('svc', $1)", payload)
		return err
	})
}

// soakProbe reads a running svc-serve's state.
type soakProbe struct {
	api, admin, superURI string
	client               *http.Client
}

// soakSample is svc-serve's state at one time; -1 is unknown (the
// database or the admin server did not answer).
type soakSample struct {
	live, ready, items int     // statuses of /live, /ready and GET /items
	goroutines, rssMiB int     // from /metrics
	listener           float64 // svc_listener_connected
	pooled, listening  int     // svc's sessions in pg_stat_activity: the pool's (and reloads'), and LISTEN's
}

func (s soakSample) String() string {
	return fmt.Sprintf("RSS %d MiB, %d goroutines, %d sessions + %d listening; /ready %d, GET /items %d",
		s.rssMiB, s.goroutines, s.pooled, s.listening, s.ready, s.items)
}

// settled reports whether s is the end state TestSoak awaits: what it
// asserts, with goroutines back near the baseline.
func (s soakSample) settled(base soakSample) bool {
	return s.live == 200 && s.ready == 200 && s.items == 200 && s.goroutines >= 0 &&
		s.goroutines <= base.goroutines+soakGoroutineSettled && s.pooled >= 0 && s.pooled <= soakPool &&
		s.listening == 1 && s.listener == 1
}

func (p soakProbe) sample(t *testing.T) soakSample {
	t.Helper()
	s := soakSample{goroutines: -1, rssMiB: -1, pooled: -1, listening: -1}
	s.live, _ = soakGet(context.Background(), p.client, p.admin+"/live")
	s.ready, _ = soakGet(context.Background(), p.client, p.admin+"/ready")
	s.items, _ = soakGet(context.Background(), p.client, p.api+"/items?order=id")
	if body, ok := p.metrics(); ok {
		if v, ok := metricValue(body, "go_goroutines"); ok {
			s.goroutines = int(v)
		}
		if v, ok := metricValue(body, "process_resident_memory_bytes"); ok {
			s.rssMiB = int(v / (1 << 20))
		}
		s.listener, _ = metricValue(body, "svc_listener_connected")
	}
	// The LISTEN session's last statement is its LISTEN; the pool's and
	// the reloads' are anything else.
	withSuper(context.Background(), p.superURI, func(ctx context.Context, c *pgx.Conn) error {
		return c.QueryRow(ctx, `select count(*) filter (where query !~* '^\s*listen '),
			count(*) filter (where query ~* '^\s*listen ') from pg_stat_activity where application_name = 'svc'`).
			Scan(&s.pooled, &s.listening)
	})
	return s
}

// metrics returns /metrics's body.
func (p soakProbe) metrics() (string, bool) {
	resp, err := p.client.Get(p.admin + "/metrics")
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), err == nil && resp.StatusCode == 200
}

// checkReload sends 'reload schema' and waits for the reload to be
// counted: the listener came through the faults working, not only
// connected.
func (p soakProbe) checkReload(t *testing.T) {
	t.Helper()
	const series = `svc_snapshot_reloads_total{result="success"}`
	reloads := func() float64 {
		body, _ := p.metrics()
		v, _ := metricValue(body, series)
		return v
	}
	before := reloads()
	if err := notify(context.Background(), p.superURI, "reload schema"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for reloads() <= before {
		if time.Now().After(deadline) {
			t.Errorf("a 'reload schema' after the faults was not acted on within 5 s (%s %v)", series, before)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
