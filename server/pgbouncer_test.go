package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/svc-dev/svc/server/config"
)

// TestBehindPgBouncer serves through PgBouncer in transaction pooling mode
// (server connections shared between client connections from one
// transaction to the next): with db-prepared-statements off and LISTEN on
// db-channel-uri, concurrent requests alternating between an authenticated
// and the anonymous role each see exactly their own role and claims, so no
// session state leaks between requests; reloads still arrive.
func TestBehindPgBouncer(t *testing.T) {
	bouncer := startBouncer(t)
	secret := "a-test-secret-of-at-least-32-characters"
	_, url := startRuntime(t, config.Sources{Flags: map[string]string{
		"db-uri": bouncer.URI(fixture.authURI), "db-channel-uri": fixture.authURI, "db-prepared-statements": "false",
		"db-schemas": "test", "db-anon-role": "web_anon", "jwt-secret": secret, "db-pool": "8",
		"db-channel": "svc_bouncer_test"}}, "svc_bouncer_test")

	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"role": "web_user", "sub": "u7"}).SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	call := func(authenticated bool) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, url+"/rpc/request_context", nil)
		if authenticated {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	_, userBody := call(true)
	_, anonBody := call(false)
	if userBody == anonBody {
		t.Fatalf("the two roles see the same context: %s", userBody)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 400)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				authenticated := (w+i)%2 == 0
				want := anonBody
				if authenticated {
					want = userBody
				}
				if status, body := call(authenticated); status != 200 || body != want {
					errs <- fmt.Sprintf("authenticated=%v: %d %s", authenticated, status, body)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	// The direct LISTEN connection still hears reloads.
	db := superConn(t)
	if _, err := db.Exec(context.Background(), "create table test.bouncer_new (id int); grant select on test.bouncer_new to web_anon"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec(context.Background(), "drop table test.bouncer_new") })
	if _, err := db.Exec(context.Background(), "notify svc_bouncer_test, 'reload schema'"); err != nil {
		t.Fatal(err)
	}
	eventually(t, url+"/bouncer_new", 200, 5*time.Second)
}
