package deploy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/sql/pgtest"
)

// TestFleetScale simulates a fleet on this machine: SVC_FLEET_NODES
// svc-serve processes (db-pool 2, snapshot = "db") on one database, their
// requests directly and then through PgBouncer, follow a migration and
// two reload storms. It reports, for docs/operations.md (section "Fleet
// scale"), the time from the migration's COMMIT to each node serving the
// new snapshot (median, slowest), the sessions PostgreSQL opened, the
// snapshot fetches and bytes it sent, and the CPU time its processes
// spent, per reload of the whole fleet. It asserts only that every node
// follows; the figures are measured, never judged. It takes minutes, so
// it runs only when asked:
//
//	SVC_FLEET_NODES=50 go test -count=1 -run TestFleetScale -v -timeout 30m ./deploy/
func TestFleetScale(t *testing.T) {
	size, _ := strconv.Atoi(os.Getenv("SVC_FLEET_NODES"))
	if size <= 0 {
		t.Skip("a measurement, not a check, taking minutes: set SVC_FLEET_NODES (50 for the figures in docs/operations.md)")
	}
	if _, err := pgtest.FindPgBouncer(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	c, err := pgtest.Start(ctx, pgtest.Options{Settings: []string{fmt.Sprintf("max_connections = %d", 6*size+50)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	f := &fleet{cluster: c, superURI: c.URI}
	f.exec(t, fleetSQL)
	// A schema of some size, so that the snapshot a node reads weighs
	// what a real API's does: 200 tables of 8 columns.
	f.exec(t, `do $$ begin for i in 1..200 loop
		execute format('create table api.t%s (id int primary key, a text, b int, c date, d jsonb, e numeric, f bool, g text)', i);
		execute format('grant select on api.t%s to web_anon', i); end loop; end $$`)
	bouncer, err := pgtest.StartPgBouncer(ctx, c.URI, []string{"authenticator"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bouncer.Stop)
	u, _ := url.Parse(c.URI)
	u.User = url.User("authenticator")
	direct := u.String()
	dir := t.TempDir()
	serve, introspect := buildPrograms(t, dir)
	f.introspect = introspect
	f.publish(t)

	var table []string
	for _, mode := range []string{"direct", "PgBouncer"} {
		dbURI := direct
		if mode == "PgBouncer" {
			dbURI = bouncer.URI(direct)
		}
		nodes := startScaleNodes(t, serve, dir, mode, size, dbURI, direct)
		table = append(table, measureFleet(t, f, mode, nodes)...)
		for _, n := range nodes {
			n.stop()
		}
	}
	t.Logf("fleet of %d nodes (db-pool 2, snapshot = \"db\"), PostgreSQL 15 and the nodes on one %d-core machine:\n\n"+
		"| requests | event | → node serving: median | slowest | sessions opened on PostgreSQL | snapshot queries | snapshot bytes read | PostgreSQL CPU |\n"+
		"|---|---|---|---|---|---|---|---|\n%s",
		size, numCPU(), strings.Join(table, "\n"))
}

// scaleNode is one svc-serve of the simulated fleet.
type scaleNode struct {
	api, log string
	stop     func()
}

func startScaleNodes(t *testing.T, serve, dir, mode string, size int, dbURI, direct string) []*scaleNode {
	t.Helper()
	var nodes []*scaleNode
	for i := range size {
		n := &scaleNode{api: "127.0.0.1:" + freePort(t), log: filepath.Join(dir, fmt.Sprintf("%s-%d.log", mode, i))}
		_, port, _ := net.SplitHostPort(n.api)
		cmd := exec.Command(serve)
		cmd.Env = append(os.Environ(), "SVC_DB_URI="+dbURI, "SVC_DB_CHANNEL_URI="+direct,
			"SVC_DB_SCHEMAS=api", "SVC_DB_ANON_ROLE=web_anon", "SVC_SNAPSHOT=db", "SVC_DB_POOL=2",
			"SVC_LOG_FORMAT=json", "SVC_LOG_LEVEL=info", "SVC_SERVER_HOST=127.0.0.1", "SVC_SERVER_PORT="+port)
		out, err := os.Create(n.log)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stopped := false
		n.stop = func() {
			if !stopped {
				stopped = true
				cmd.Process.Signal(os.Interrupt)
				cmd.Wait()
				out.Close()
			}
		}
		t.Cleanup(n.stop)
		nodes = append(nodes, n)
	}
	for _, n := range nodes {
		waitFor(t, time.Minute, "node serving", func() bool { return httpStatus("http://"+n.api+"/items?id=eq.1") == 200 })
	}
	return nodes
}

// measureFleet runs the migration and the storms on nodes and returns
// their rows of the table.
func measureFleet(t *testing.T, f *fleet, mode string, nodes []*scaleNode) []string {
	t.Helper()
	var rows []string
	db, err := pgx.Connect(context.Background(), f.superURI)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	load := startLoad(asNodes(nodes), 4)

	// A migration, published: every node reloads a changed snapshot.
	before := pgFigures(t, db, false)
	table := fmt.Sprintf("added_%s", strings.ToLower(mode))
	f.exec(t, fmt.Sprintf("create table api.%s (id int primary key); grant select on api.%s to web_anon", table, table))
	commit := time.Now()
	f.publish(t)
	published := time.Since(commit)
	serving := waitLoaded(t, nodes, commit, func(line logLine) bool { return line.Changed == nil })
	// The figures include publish's own: its dump (the catalog queries,
	// most of the CPU) and its read of the snapshot it replaces.
	rows = append(rows, row(mode, fmt.Sprintf("migration, then publish (returned after %s; its own work included)",
		published.Round(time.Millisecond)), commit, serving, before, pgFigures(t, db, true)))
	load.halt()
	if n := load.failed.Load(); n > 0 {
		t.Errorf("%s: %d of %d requests failed; last: %v", mode, n, load.sent.Load(), load.lastFailure.Load())
	}

	// A storm: every node told to reload at once, nothing changed.
	before = pgFigures(t, db, false)
	sent := time.Now()
	if _, err := db.Exec(context.Background(), "notify svc, 'reload schema'"); err != nil {
		t.Fatal(err)
	}
	serving = waitLoaded(t, nodes, sent, func(line logLine) bool { return line.Changed != nil })
	rows = append(rows, row(mode, "NOTIFY storm, nothing changed", sent, serving, before, pgFigures(t, db, true)))

	// Ten notifications in a row: the nodes' queues space them out.
	before = pgFigures(t, db, false)
	sent = time.Now()
	for range 10 {
		if _, err := db.Exec(context.Background(), "notify svc, 'reload schema'"); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(5 * time.Second)
	rows = append(rows, row(mode, "10 NOTIFYs at once, nothing changed (5 s)", sent, nil, before, pgFigures(t, db, true)))
	return rows
}

func asNodes(nodes []*scaleNode) []node {
	out := make([]node, len(nodes))
	for i, n := range nodes {
		out[i] = node{api: n.api}
	}
	return out
}

// logLine is what the measurement reads of a node's JSON log line.
type logLine struct {
	Time    time.Time `json:"time"`
	Msg     string    `json:"msg"`
	Changed any       `json:"changed"`
}

// waitLoaded waits until every node's log has a "schema snapshot loaded"
// line after since that match accepts, and returns each node's first such
// line's time.
func waitLoaded(t *testing.T, nodes []*scaleNode, since time.Time, match func(logLine) bool) []time.Time {
	t.Helper()
	at := make([]time.Time, len(nodes))
	waitFor(t, 2*time.Minute, "every node loaded the snapshot", func() bool {
		done := true
		for i, n := range nodes {
			if at[i].IsZero() {
				at[i] = loadedAfter(n.log, since, match)
			}
			done = done && !at[i].IsZero()
		}
		if !done {
			time.Sleep(50 * time.Millisecond)
		}
		return done
	})
	return at
}

func loadedAfter(path string, since time.Time, match func(logLine) bool) time.Time {
	file, err := os.Open(path)
	if err != nil {
		return time.Time{}
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var l logLine
		if json.Unmarshal(sc.Bytes(), &l) == nil && strings.HasPrefix(l.Msg, "schema snapshot loaded") &&
			l.Time.After(since) && match(l) {
			return l.Time
		}
	}
	return time.Time{}
}

// figures are PostgreSQL's counters the table reports the change of.
type figures struct {
	sessions, queries, toastBlocks int64
	cpu                            time.Duration
}

// statsSettle is how long PostgreSQL 15 may keep a backend's statistics
// before reporting them: a pooled session idle after a reload reports
// within 10 s.
const statsSettle = 11 * time.Second

// pgFigures reads the counters once the statistics have settled: the
// sessions established to the database, the scans of the snapshot table
// (one a load), the blocks read of its TOAST table, where a snapshot's
// body lives (read only when a load fetches the body), and the CPU time
// PostgreSQL's processes have used.
//
// CPU time is read before the wait, once an event is over (after), and
// after it, just before an event (before), so that what the background
// processes use while the statistics settle is not counted.
func pgFigures(t *testing.T, db *pgx.Conn, after bool) figures {
	t.Helper()
	ctx := context.Background()
	var pidFile string
	if err := db.QueryRow(ctx, "select pg_read_file('postmaster.pid')").Scan(&pidFile); err != nil {
		t.Fatal(err)
	}
	pm, _ := strconv.Atoi(strings.SplitN(pidFile, "\n", 2)[0])
	var f figures
	if after {
		f.cpu = processTreeCPU(pm)
	}
	time.Sleep(statsSettle)
	if !after {
		f.cpu = processTreeCPU(pm)
	}
	err := db.QueryRow(ctx, `select pg_stat_clear_snapshot() is null,
		(select sessions from pg_stat_database where datname = current_database()),
		(select coalesce(seq_scan, 0) + coalesce(idx_scan, 0) from pg_stat_user_tables where relid = 'svc_snapshots.snapshots'::regclass),
		(select coalesce(toast_blks_read, 0) + coalesce(toast_blks_hit, 0) from pg_statio_user_tables where relid = 'svc_snapshots.snapshots'::regclass)`).
		Scan(nil, &f.sessions, &f.queries, &f.toastBlocks)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// processTreeCPU is the CPU time of pid, of its children it has reaped
// (the backends that exited), and of its live children.
func processTreeCPU(pid int) time.Duration {
	ticks := int64(0)
	if fields := procStat(pid); fields != nil {
		for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime, after the command
			v, _ := strconv.ParseInt(fields[i], 10, 64)
			ticks += v
		}
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if fields := procStat(child); fields != nil && fields[1] == strconv.Itoa(pid) {
			for _, i := range []int{11, 12} {
				v, _ := strconv.ParseInt(fields[i], 10, 64)
				ticks += v
			}
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

// procStat is /proc/pid/stat's fields after the command's, from the state.
func procStat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// row is the table's row for event, which started at start and which
// each node followed at at (nil: not timed).
func row(mode, event string, start time.Time, at []time.Time, before, after figures) string {
	median, slowest := "n/a", "n/a"
	if len(at) > 0 {
		d := make([]time.Duration, len(at))
		for i, a := range at {
			d[i] = a.Sub(start)
		}
		slices.Sort(d)
		median, slowest = d[len(d)/2].Round(time.Millisecond).String(), d[len(d)-1].Round(time.Millisecond).String()
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %d | %d | %.1f MB | %s |", mode, event, median, slowest,
		after.sessions-before.sessions, after.queries-before.queries, float64((after.toastBlocks-before.toastBlocks)*8192)/1e6,
		(after.cpu - before.cpu).Round(10*time.Millisecond))
}

func numCPU() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return max(1, strings.Count(string(b), "processor\t:"))
}
