package replica_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/sql/pgtest"
)

// logBuffer keeps a server's log for a test to read.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// waitFor polls cond until it holds, failing the test after 30 seconds.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// awaitServing waits until every replica of ts may serve a read: healthy
// and past the snapshot's position, which a replica is known to have
// replayed only from its next check after the snapshot was taken. Healthy
// alone is not enough: a read sent before that check rightly goes to the
// primary. On a loaded machine a check may also find a replica slow.
func (ts *testServer) awaitServing(t testing.TB) {
	t.Helper()
	for _, r := range ts.Replicas.Replicas() {
		waitFor(t, r.Name+" healthy and past the snapshot's position", func() bool {
			st := r.Status()
			return st.Healthy && st.Replayed >= ts.Replicas.Required()
		})
	}
}

// sql runs statements on a cluster of the fixture, in its replicas
// database, as superuser.
func sql(t *testing.T, c *pgtest.Cluster, statements string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURI(c, "postgres", "replicas"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, statements); err != nil {
		t.Fatal(err)
	}
}

// pauseReplay stops standby i replaying the primary's WAL (it goes on
// receiving it) until the test ends or resumeReplay.
func pauseReplay(t *testing.T, i int) {
	t.Helper()
	s := fixture.set.Standbys[i]
	sql(t, s, "select pg_wal_replay_pause()")
	t.Cleanup(func() { resumeReplay(t, i) })
}

func resumeReplay(t *testing.T, i int) {
	t.Helper()
	sql(t, fixture.set.Standbys[i], "select pg_wal_replay_resume()")
}

// token signs claims with the fixture servers' secret.
func token(t *testing.T, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(jwtSecret))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// whereami is the body of GET /whereami and of the functions' calls.
type whereami struct {
	Standby bool `json:"standby"`
	Port    int  `json:"port"`
}

// standby reads where a request for path ran from its answer: the
// standby column of its one row, or the boolean a function returned.
func standby(t *testing.T, status int, body string) bool {
	t.Helper()
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	var b bool
	if err := json.Unmarshal([]byte(body), &b); err == nil {
		return b
	}
	var rows []whereami
	if err := json.Unmarshal([]byte(body), &rows); err != nil || len(rows) == 0 {
		t.Fatalf("body %s: %v", body, err)
	}
	return rows[0].Standby
}
