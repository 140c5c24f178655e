package server_test

import (
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/svc-dev/svc/sql/pgtest"
)

// tokenCeiling bounds svc-serve's resident memory at its peak while it
// verifies distinct tokens each about as large as its header limit allows
// (docs/operations.md, "Memory for tokens").
const tokenCeiling = 192 << 20

// TestDistinctLargeTokensStayBounded sends 1,000 requests, each with a
// distinct valid token of half a megabyte (its claims padded), to
// svc-serve with its default token cache, and checks that its peak
// resident memory (VmHWM) stays under tokenCeiling: the cache keeps at
// most jwt-cache-max-bytes of them, where a count alone kept them all
// until they expired, close to 2 GB.
func TestDistinctLargeTokensStayBounded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads svc-serve's memory from /proc, which only Linux has")
	}
	if os.Getenv(pgtest.ExistingURIEnv) != "" {
		t.Skip(pgtest.ExistingURIEnv + " is set: svc-serve's memory is measured on a cluster of the test's own")
	}
	if testing.Short() {
		t.Skip("1,000 requests with tokens of 512 KB")
	}
	const secret = "a-test-secret-of-at-least-32-characters"
	url, _, cmd := processCmdWith(t, map[string]string{"jwt-secret": secret})
	pad := strings.Repeat("p", 384<<10) // base64 makes it 512 KB of token
	const tokens, clients = 1000, 4
	var failed atomic.Int64
	next := make(chan int)
	var wg sync.WaitGroup
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	for range clients {
		wg.Go(func() {
			for i := range next {
				token, err := jwt.NewWithClaims(jwt.SigningMethodHS256,
					jwt.MapClaims{"role": "web_user", "n": i, "pad": pad}).SignedString([]byte(secret))
				if err != nil {
					t.Error(err)
					return
				}
				req, _ := http.NewRequest(http.MethodGet, url+"/rpc/whoami", nil)
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := client.Do(req)
				var status int
				var body []byte
				if err == nil {
					body, err = io.ReadAll(resp.Body)
					resp.Body.Close()
					status = resp.StatusCode
				}
				if err != nil || status != http.StatusOK || string(body) != `"web_user"` {
					if failed.Add(1) == 1 {
						t.Errorf("token %d: %d %s %v", i, status, body, err)
					}
				}
			}
		})
	}
	for i := range tokens {
		next <- i
	}
	close(next)
	wg.Wait()
	if n := failed.Load(); n > 0 {
		t.Fatalf("%d of %d requests were not answered 200 \"web_user\"", n, tokens)
	}
	peak := procField(t, cmd.Process.Pid, "status", "VmHWM")
	t.Logf("svc-serve: peak resident memory %d MiB", peak>>20)
	if peak > tokenCeiling {
		t.Errorf("svc-serve's resident memory reached %d MiB, more than %d MiB", peak>>20, tokenCeiling>>20)
	}
}
