package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
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
	skipUnlessProcMemory(t, "1,000 requests with tokens of 512 KB")
	const secret = "a-test-secret-of-at-least-32-characters"
	url, _, cmd := processCmdWith(t, map[string]string{"jwt-secret": secret})
	pad := strings.Repeat("p", 384<<10) // base64 makes it 512 KB of token
	sendEach(t, 0, 1000, 4, func(i int) *http.Request {
		token, err := jwt.NewWithClaims(jwt.SigningMethodHS256,
			jwt.MapClaims{"role": "web_user", "n": i, "pad": pad}).SignedString([]byte(secret))
		if err != nil {
			t.Fatal(err)
		}
		req := getRequest(url + "/rpc/whoami")
		req.Header.Set("Authorization", "Bearer "+token)
		return req
	}, func(_, status int, body []byte) bool { return status == http.StatusOK && string(body) == `"web_user"` })
	peak := procField(t, cmd.Process.Pid, "status", "VmHWM")
	t.Logf("svc-serve: peak resident memory %d MiB", peak>>20)
	if peak > tokenCeiling {
		t.Errorf("svc-serve's resident memory reached %d MiB, more than %d MiB", peak>>20, tokenCeiling>>20)
	}
}
