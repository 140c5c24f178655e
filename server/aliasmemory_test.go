package server_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// aliasShape is the i-th of a stream of reads that differ only by the
// name of their first column: 256 columns, each a new row type for the
// backend that runs it, which PostgreSQL keeps until the session ends.
func aliasShape(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "/books?limit=1&select=v%d:year::text", i)
	for j := range 255 {
		fmt.Fprintf(&b, ",a%d:year::text", j)
	}
	return b.String()
}

// TestDistinctAliasesStayBounded sends 10,000 reads, anonymously, each
// with a new alias, to svc-serve with a pool of 2 sessions, as prepared
// statements would run them and as a transaction pooler's would, and
// checks every 500 reads that no request backend has grown by more than
// backendCeiling past the pool's baseline (Private_Dirty, as
// TestDistinctShapesStayBounded reads it): the sessions whose row types
// pass db-session-row-types-max-bytes are closed and replaced.
func TestDistinctAliasesStayBounded(t *testing.T) {
	skipUnlessProcMemory(t, "10,000 requests of 256 columns each")
	for _, prepared := range []string{"true", "false"} {
		t.Run("prepared="+prepared, func(t *testing.T) { aliasesStayBounded(t, prepared) })
	}
}

func aliasesStayBounded(t *testing.T, prepared string) {
	super := superConn(t)
	app := "svc_alias_memory_" + prepared
	const pool = 2
	url, _, _ := processCmdWith(t, map[string]string{
		"db-uri":                 namedAuthURI(t, app),
		"db-pool":                strconv.Itoa(pool),
		"db-prepared-statements": prepared,
		"db-channel-enabled":     "false",
	})
	for i := range 4 * pool {
		mustGet(t, url+"/books?select=id,title&id=eq."+strconv.Itoa(i))
	}
	var baseline int64
	for _, pid := range backends(t, super, app) {
		baseline = max(baseline, procField(t, pid, "smaps_rollup", "Private_Dirty"))
	}
	var most int64
	check := func(after int) {
		for _, pid := range backends(t, super, app) {
			dirty, ok := procFieldIfAlive(t, pid, "smaps_rollup", "Private_Dirty")
			if !ok {
				continue // a session closed since it was listed: what the ledger does
			}
			grown := dirty - baseline
			most = max(most, grown)
			if grown > backendCeiling {
				t.Errorf("after %d reads, backend %d has grown by %d MiB past the pool's baseline, more than %d MiB",
					after, pid, grown>>20, backendCeiling>>20)
			}
		}
	}

	const shapes, every = 10000, 500
	for start := 0; start < shapes; start += every {
		sendEach(t, start, start+every, 4, func(i int) *http.Request { return getRequest(url + aliasShape(i)) },
			func(i, status int, body []byte) bool {
				return status == http.StatusOK && strings.HasPrefix(string(body), fmt.Sprintf(`[{"v%d":`, i))
			})
		check(start + every)
		if t.Failed() {
			return
		}
	}
	t.Logf("the most a backend grew past the pool's baseline of %d MiB: %d MiB", baseline>>20, most>>20)
}
