package server_test

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	neturl "net/url"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/sql/pgtest"
)

// What the tests of memory under hostile streams share: they read svc-serve's
// and PostgreSQL's memory from /proc and send thousands of requests.

// skipUnlessProcMemory skips a test that reads processes' memory from
// /proc where it cannot, and, as heavy, in -short runs (why says what it
// sends).
func skipUnlessProcMemory(t *testing.T, why string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reads the memory of svc-serve and of PostgreSQL's backends from /proc, which only Linux has")
	}
	if os.Getenv(pgtest.ExistingURIEnv) != "" {
		t.Skip(pgtest.ExistingURIEnv + " is set: its backends may not run on this machine, where /proc shows them")
	}
	if testing.Short() {
		t.Skip(why)
	}
}

// namedAuthURI is the fixture's authenticator URI with application_name
// app, so that backends shows the sessions of a pool opened with it.
func namedAuthURI(t *testing.T, app string) string {
	t.Helper()
	uri, err := neturl.Parse(fixture.authURI)
	if err != nil {
		t.Fatal(err)
	}
	q := uri.Query()
	q.Set("application_name", app)
	uri.RawQuery = q.Encode()
	return uri.String()
}

// sendEach sends the requests i in [from, to) make, from clients at once,
// and fails the test when one is not answered as ok says: the first such
// is named, and the count of them.
func sendEach(t *testing.T, from, to, clients int, request func(i int) *http.Request, ok func(i, status int, body []byte) bool) {
	t.Helper()
	var failed atomic.Int64
	next := make(chan int)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for i := range next {
				resp, err := client.Do(request(i))
				var status int
				var body []byte
				if err == nil {
					body, err = io.ReadAll(resp.Body)
					resp.Body.Close()
					status = resp.StatusCode
				}
				if err != nil || !ok(i, status, body) {
					if failed.Add(1) == 1 {
						t.Errorf("request %d: %d %.200s %v", i, status, body, err)
					}
				}
			}
		})
	}
	for i := from; i < to; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	if n := failed.Load(); n > 0 {
		t.Fatalf("%d of %d requests were not answered as they should", n, to-from)
	}
}

// getRequest is a GET of url.
func getRequest(url string) *http.Request {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	return req
}

// procFieldIfAlive is procField of a process that may have ended since
// it was listed: false when it has.
func procFieldIfAlive(t *testing.T, pid int, file, field string) (int64, bool) {
	t.Helper()
	n, err := readProcField(pid, file, field)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
		return 0, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return n, true
}

// mustExec runs sql on db, failing the test on an error.
func mustExec(t *testing.T, db *pgx.Conn, sql string) {
	t.Helper()
	if _, err := db.Exec(t.Context(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
