package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// The ceilings docs/operations.md ("Memory for request shapes") promises
// under a stream of distinct request shapes, each about the largest the
// request limits allow.
const (
	// backendCeiling bounds what a request session's PostgreSQL backend
	// may grow by past its baseline: its prepared statements.
	backendCeiling = 64 << 20
	// serveCeiling bounds svc-serve's resident memory at its peak.
	serveCeiling = 256 << 20
)

// hostileOperators are filters a text value takes, each writing other SQL.
var hostileOperators = []string{"eq.x", "neq.x", "gt.x", "gte.x", "lt.x", "lte.x", "like.*x*", "ilike.*x*",
	"match.x", "imatch.x", "is.null", "isdistinct.x", "in.(a,b,c)", "fts.x", "plfts.x", "phfts(english).x",
	"wfts.x", "not.eq.x", "like(any).{a,b}", "gt(all).{a,b}", "not.in.(a,b)", "not.like.x"}

// hostileShape is the i-th of a stream of distinct read shapes: 200 filters
// on JSON paths of books.meta, each with an operator drawn for i, and long
// path keys, so that each shape makes a large statement and a large
// template for SVC to keep.
func hostileShape(i int) string {
	r := rand.New(rand.NewPCG(uint64(i), 43))
	pad := strings.Repeat("k", 200)
	var b strings.Builder
	b.WriteString("/books?select=id")
	for j := range 200 {
		fmt.Fprintf(&b, "&meta->>%s%d=%s", pad, j, hostileOperators[r.IntN(len(hostileOperators))])
	}
	return b.String()
}

// TestDistinctShapesStayBounded sends 10,000 distinct large read shapes,
// anonymously, to svc-serve with a pool of 4 sessions, and checks that
// neither PostgreSQL's backends nor svc-serve keep what each shape cost:
// every request backend grows by less than backendCeiling past its
// baseline (Private_Dirty in /proc/<pid>/smaps_rollup, measured once the
// pool's sessions have served ordinary requests), and svc-serve's peak
// resident memory (VmHWM) stays under serveCeiling. SVC runs requests
// with JIT off, so the backends keep nothing for JIT compiles, which
// these bounds could not limit (docs/operations.md).
func TestDistinctShapesStayBounded(t *testing.T) {
	skipUnlessProcMemory(t, "10,000 requests of 200 filters each")
	super := superConn(t)
	const app, pool = "svc_shape_memory", 4
	url, _, cmd := processCmdWith(t, map[string]string{
		"db-uri":  namedAuthURI(t, app),
		"db-pool": strconv.Itoa(pool),
		// Only the pool's sessions then carry the name.
		"db-channel-enabled": "false",
	})

	// Every session of the pool opened (each held by a sleeping call),
	// then used by ordinary reads: the baseline.
	var wg sync.WaitGroup
	for i := range pool {
		wg.Go(func() {
			body := fmt.Sprintf(`{"name":"shape_memory_%d","seconds":1}`, i)
			resp, err := http.Post(url+"/rpc/log_then_nap", "application/json", strings.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		})
	}
	wg.Wait()
	for i := range 4 * pool {
		mustGet(t, url+"/books?select=id,title&id=eq."+strconv.Itoa(i))
	}
	pids := backends(t, super, app)
	if len(pids) != pool {
		t.Fatalf("%d sessions named %s after %d concurrent calls, want %d", len(pids), app, pool, pool)
	}
	baseline := map[int]int64{}
	for _, pid := range pids {
		baseline[pid] = procField(t, pid, "smaps_rollup", "Private_Dirty")
	}

	sendEach(t, 0, 10000, 8, func(i int) *http.Request { return getRequest(url + hostileShape(i)) },
		func(_, status int, body []byte) bool {
			return status == http.StatusOK && bytes.Equal(body, []byte("[]"))
		})

	for _, pid := range backends(t, super, app) {
		base, ok := baseline[pid]
		if !ok {
			t.Errorf("backend %d opened during the run: the pool replaced a session", pid)
			continue
		}
		grown := procField(t, pid, "smaps_rollup", "Private_Dirty") - base
		t.Logf("backend %d: %d MiB over its baseline of %d MiB", pid, grown>>20, base>>20)
		if grown > backendCeiling {
			t.Errorf("backend %d grew by %d MiB, more than %d MiB", pid, grown>>20, backendCeiling>>20)
		}
	}
	peak := procField(t, cmd.Process.Pid, "status", "VmHWM")
	t.Logf("svc-serve: peak resident memory %d MiB", peak>>20)
	if peak > serveCeiling {
		t.Errorf("svc-serve's resident memory reached %d MiB, more than %d MiB", peak>>20, serveCeiling>>20)
	}
}

// mustGet fails the test unless url answers 200.
func mustGet(t *testing.T, url string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
}

// backends lists the process ids of the client sessions named app.
func backends(t *testing.T, conn *pgx.Conn, app string) []int {
	t.Helper()
	rows, err := conn.Query(context.Background(),
		"select pid from pg_catalog.pg_stat_activity where application_name = $1 and backend_type = 'client backend'", app)
	if err != nil {
		t.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int, len(pids))
	for i, p := range pids {
		out[i] = int(p)
	}
	return out
}

// procField reads a field given in kB from /proc/<pid>/<file>, in bytes.
func procField(t *testing.T, pid int, file, field string) int64 {
	t.Helper()
	n, err := readProcField(pid, file, field)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// readProcField is procField's reading.
func readProcField(pid int, file, field string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || name != field {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/%s: %s: %v", pid, file, line, err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("/proc/%d/%s has no %s", pid, file, field)
}
