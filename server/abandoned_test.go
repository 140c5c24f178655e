package server_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// stubbornSecret signs the tokens of TestAbandonedRequestsKeepToThePool.
const stubbornSecret = "stubborn-nap-secret-of-at-least-32-characters"

// TestAbandonedRequestsKeepToThePool: requests whose statements go on
// after their clients left (stubborn_nap ignores cancel requests and its
// connection closing, as a JIT compile does) never have more backends at
// work than db-pool. The requests come one every 100 ms to a pool of two
// sessions, and each client leaves 300 ms after sending: a session whose
// client left keeps its place in the pool until its backend has stopped,
// and the requests queued meanwhile are abandoned there, before reaching
// PostgreSQL. Were the place given back as the client left, each request
// would get a new session while the naps before it sleep on.
//
// The server's sessions are counted in pg_stat_activity, sampled all
// along: they carry an application_name of their own (db-uri names it),
// so the package's other servers' sessions are not counted.
func TestAbandonedRequestsKeepToThePool(t *testing.T) {
	const (
		pool     = 2
		requests = 3 * pool
		nap      = 2 // seconds each statement works on, whatever happens
	)
	appName := "svc-abandoned"
	u, err := url.Parse(fixture.cfg.DBURI)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", appName)
	u.RawQuery = q.Encode()
	base := serverWith(t, map[string]string{"db-pool": fmt.Sprint(pool), "db-uri": u.String(),
		"jwt-secret": stubbornSecret})
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"role": "web_stubborn"}).SignedString([]byte(stubbornSecret))
	if err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"seconds":%d}`, nap)
	req := fmt.Sprintf("POST /rpc/stubborn_nap HTTP/1.1\r\nHost: svc\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", token, len(body), body)

	// The sampler counts the server's sessions, and those napping.
	sdb := superConn(t)
	var most, mostNapping int
	sample := func() {
		var n, napping int
		if err := sdb.QueryRow(context.Background(), "select count(*), count(*) filter (where query like '%stubborn_nap%' and state = 'active') "+
			"from pg_stat_activity where application_name = $1", appName).Scan(&n, &napping); err != nil {
			t.Error(err)
			return
		}
		most, mostNapping = max(most, n), max(mostNapping, napping)
	}
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			default:
			}
			sample()
			time.Sleep(10 * time.Millisecond)
		}
	}()

	var clients sync.WaitGroup
	for range requests {
		clients.Add(1)
		go func() {
			defer clients.Done()
			c, err := net.Dial("tcp", base[len("http://"):])
			if err != nil {
				t.Error(err)
				return
			}
			io.WriteString(c, req)
			time.Sleep(300 * time.Millisecond)
			c.Close()
		}()
		time.Sleep(100 * time.Millisecond)
	}
	clients.Wait()

	// Until every nap has ended and its session is gone.
	db := superConn(t)
	for deadline := time.Now().Add(4 * nap * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var napping int
		if err := db.QueryRow(t.Context(), "select count(*) from pg_stat_activity where query like '%stubborn_nap%' "+
			"and state = 'active' and pid <> pg_backend_pid()").Scan(&napping); err != nil {
			t.Fatal(err)
		}
		if napping == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("stubborn_nap still runs %d s after the last client left", 4*nap)
		}
	}
	close(stop)
	<-sampled

	if mostNapping < pool {
		t.Fatalf("at most %d statements ran at once; want the pool (%d) full of abandoned ones, or the test shows nothing", mostNapping, pool)
	}
	if most > pool {
		t.Errorf("the server had %d sessions at once (%d of them napping) for a pool of %d: abandoned requests' backends outnumber db-pool",
			most, mostNapping, pool)
	}
}
