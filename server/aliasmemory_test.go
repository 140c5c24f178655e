package server_test

import (
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/svc-dev/svc/sql/pgtest"
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
	if runtime.GOOS != "linux" {
		t.Skip("reads the memory of PostgreSQL's backends from /proc, which only Linux has")
	}
	if os.Getenv(pgtest.ExistingURIEnv) != "" {
		t.Skip(pgtest.ExistingURIEnv + " is set: its backends may not run on this machine, where /proc shows them")
	}
	if testing.Short() {
		t.Skip("10,000 requests of 256 columns each")
	}
	for _, prepared := range []string{"true", "false"} {
		t.Run("prepared="+prepared, func(t *testing.T) { aliasesStayBounded(t, prepared) })
	}
}

func aliasesStayBounded(t *testing.T, prepared string) {
	super := superConn(t)
	app := "svc_alias_memory_" + prepared
	const pool = 2
	uri, err := neturl.Parse(fixture.authURI)
	if err != nil {
		t.Fatal(err)
	}
	q := uri.Query()
	q.Set("application_name", app)
	uri.RawQuery = q.Encode()
	url, _, _ := processCmdWith(t, map[string]string{
		"db-uri":                 uri.String(),
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
			grown := procField(t, pid, "smaps_rollup", "Private_Dirty") - baseline
			most = max(most, grown)
			if grown > backendCeiling {
				t.Errorf("after %d reads, backend %d has grown by %d MiB past the pool's baseline, more than %d MiB",
					after, pid, grown>>20, backendCeiling>>20)
			}
		}
	}

	const shapes, clients, every = 10000, 4, 500
	var failed atomic.Int64
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	for start := 0; start < shapes; start += every {
		var wg sync.WaitGroup
		next := make(chan int)
		for range clients {
			wg.Go(func() {
				for i := range next {
					resp, err := client.Get(url + aliasShape(i))
					var status int
					var body []byte
					if err == nil {
						body, err = io.ReadAll(resp.Body)
						resp.Body.Close()
						status = resp.StatusCode
					}
					if err != nil || status != http.StatusOK || !strings.HasPrefix(string(body), fmt.Sprintf(`[{"v%d":`, i)) {
						if failed.Add(1) == 1 {
							t.Errorf("read %d: %d %.200s %v", i, status, body, err)
						}
					}
				}
			})
		}
		for i := start; i < start+every; i++ {
			next <- i
		}
		close(next)
		wg.Wait()
		check(start + every)
		if t.Failed() {
			return
		}
	}
	t.Logf("the most a backend grew past the pool's baseline of %d MiB: %d MiB", baseline>>20, most>>20)
}
