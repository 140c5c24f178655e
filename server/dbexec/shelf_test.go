package dbexec_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/query"
)

// shelfPool opens a primary pool of size sessions with cfg's other
// settings, and an executor over it waiting at most timeout for one.
func shelfPool(t *testing.T, size int, timeout time.Duration, edit func(*config.Config)) (*pgxpool.Pool, *dbexec.Executor) {
	t.Helper()
	cfg := *fixture.cfg
	cfg.DBPool = size
	if edit != nil {
		edit(&cfg)
	}
	pool, err := dbexec.NewPool(t.Context(), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dbexec.ClosePool(pool) })
	exec := &dbexec.Executor{Names: apierr.SVCNaming, Pool: pool, AcquireTimeout: timeout, Prepare: true,
		CancelTimeout: dbexec.TestCancelTimeout}
	return pool, exec
}

// backendOf runs a request on exec that sleeps for sleep seconds and
// answers its session's backend.
func backendOf(ctx context.Context, exec *dbexec.Executor, sleep float64) (int64, error) {
	var pid int64
	tx := dbexec.Tx{ReadOnly: true, Role: "web_anon", SearchPath: `"test"`, Method: "GET", Path: "/"}
	err := exec.Execute(ctx, tx, dbexec.Step{
		Stmt: query.Statement{SQL: "select pg_catalog.pg_backend_pid() from pg_catalog.pg_sleep($1::float8)", Args: []any{strconv.FormatFloat(sleep, 'f', -1, 64)}},
		Row:  dbexec.ScanOne(&pid),
	})
	return pid, err
}

// TestShelfHandsSessionsOn: requests one after another take the session
// the last one gave back from the shelf, not from pgxpool; the pool's
// statistics count them as acquires and the shelved session as idle; and
// once the requests stop, the session goes back to pgxpool.
func TestShelfHandsSessionsOn(t *testing.T) {
	pool, exec := shelfPool(t, 2, 10*time.Second, nil)
	const requests = 100
	before, raw := dbexec.PoolStatOf(pool).AcquireCount(), pool.Stat().AcquireCount()
	start := time.Now()
	pids := map[int64]bool{}
	for range requests {
		pid, err := backendOf(t.Context(), exec, 0)
		if err != nil {
			t.Fatal(err)
		}
		pids[pid] = true
	}
	// A session goes back to pgxpool when it is given back two ticks or
	// more after it left it: once per 100 ms or so of requests.
	limit := 2 + 2*int64(time.Since(start)/(100*time.Millisecond))
	if n := pool.Stat().AcquireCount() - raw; n > limit {
		t.Errorf("%d requests one after another took %d sessions from pgxpool, want at most %d", requests, n, limit)
	}
	if len(pids) != 1 {
		t.Errorf("%d requests one after another ran on %d sessions, want 1", requests, len(pids))
	}
	st := dbexec.PoolStatOf(pool)
	if n := st.AcquireCount() - before; n < requests {
		t.Errorf("the pool's statistics count %d acquires for %d requests", n, requests)
	}
	if st.AcquiredConns() != 0 || st.IdleConns() != st.TotalConns() {
		t.Errorf("with no request running: %d sessions acquired, %d idle of %d, want none acquired and all idle",
			st.AcquiredConns(), st.IdleConns(), st.TotalConns())
	}
	waitFor(t, 5*time.Second, func() bool {
		st := pool.Stat()
		return st.AcquiredConns() == 0 && st.IdleConns() == st.TotalConns()
	})
}

// TestShelfHandsOverToWaiter: a request that finds every session of the
// pool in use waits on the shelf and is handed the next one given back.
func TestShelfHandsOverToWaiter(t *testing.T) {
	pool, exec := shelfPool(t, 1, 30*time.Second, nil)
	if _, err := backendOf(t.Context(), exec, 0); err != nil {
		t.Fatal(err)
	}
	waits := dbexec.PoolStatOf(pool).EmptyAcquireCount()
	first := make(chan int64, 1)
	go func() {
		pid, err := backendOf(t.Context(), exec, 0.5)
		if err != nil {
			t.Error(err)
		}
		first <- pid
	}()
	waitFor(t, 10*time.Second, func() bool { return dbexec.PoolStatOf(pool).AcquiredConns() == 1 })
	pid, err := backendOf(t.Context(), exec, 0)
	if err != nil {
		t.Fatalf("the request waiting for the pool's one session: %v", err)
	}
	if held := <-first; pid != held {
		t.Errorf("the waiting request ran on backend %d, want %d, the session the other gave back", pid, held)
	}
	if n := dbexec.PoolStatOf(pool).EmptyAcquireCount() - waits; n != 1 {
		t.Errorf("the pool's statistics count %d acquires that waited, want 1", n)
	}
}

// TestShelfWaitTimesOut: a request waiting on the shelf past the
// acquisition timeout gets the pool's timeout error (504), and is counted
// among the acquires given up.
func TestShelfWaitTimesOut(t *testing.T) {
	pool, exec := shelfPool(t, 1, 200*time.Millisecond, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := backendOf(ctx, exec, 5); done <- err }()
	waitFor(t, 10*time.Second, func() bool { return dbexec.PoolStatOf(pool).AcquiredConns() == 1 })
	canceled := dbexec.PoolStatOf(pool).CanceledAcquireCount()
	_, err := backendOf(t.Context(), exec, 0)
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Status != http.StatusGatewayTimeout {
		t.Errorf("a request waiting past the acquisition timeout: %v, want the pool's timeout (504)", err)
	}
	if n := dbexec.PoolStatOf(pool).CanceledAcquireCount() - canceled; n != 1 {
		t.Errorf("the pool's statistics count %d acquires given up, want 1", n)
	}
	cancel()
	<-done
}

// TestShelfWaitEndsWhenClientLeaves: a request waiting on the shelf stops
// waiting when its client leaves, with ErrClientGone, long before the
// acquisition timeout.
func TestShelfWaitEndsWhenClientLeaves(t *testing.T) {
	pool, exec := shelfPool(t, 1, time.Hour, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := backendOf(ctx, exec, 30); done <- err }()
	waitFor(t, 10*time.Second, func() bool { return dbexec.PoolStatOf(pool).AcquiredConns() == 1 })
	req := dbexec.NewLeavingCtx(t.Context())
	waiting := make(chan error, 1)
	go func() { _, err := backendOf(req, exec, 0); waiting <- err }()
	waitFor(t, 10*time.Second, req.Registered)
	req.ClientLeaves()
	select {
	case err := <-waiting:
		if !errors.Is(err, dbexec.ErrClientGone) {
			t.Errorf("the waiting request whose client left: %v, want ErrClientGone", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the request still waited for a session 20 s after its client left")
	}
	cancel()
	<-done
}

// TestShelfRetiresSessions: a session on the shelf or in use when the
// pool retires its sessions serves no request after, and its backend ends.
func TestShelfRetiresSessions(t *testing.T) {
	pool, exec := shelfPool(t, 2, 10*time.Second, nil)
	// Only the retirement may keep a session from serving again.
	dbexec.SlowShelfTick(pool)
	old, err := backendOf(t.Context(), exec, 0)
	if err != nil {
		t.Fatal(err)
	}
	dbexec.RetireSessions(pool)
	pid, err := backendOf(t.Context(), exec, 0)
	if err != nil {
		t.Fatal(err)
	}
	if pid == old {
		t.Errorf("a request after the retirement ran on the retired session's backend %d", pid)
	}
	db := superConn(t)
	waitFor(t, 10*time.Second, func() bool {
		var alive bool
		db.QueryRow(t.Context(), "select exists (select from pg_stat_activity where pid = $1)", old).Scan(&alive)
		return !alive
	})

	// Retired while a request runs on it, a session is not shelved after.
	running := make(chan int64, 1)
	go func() {
		pid, err := backendOf(t.Context(), exec, 0.5)
		if err != nil {
			t.Error(err)
		}
		running <- pid
	}()
	waitFor(t, 10*time.Second, func() bool { return dbexec.PoolStatOf(pool).AcquiredConns() == 1 })
	dbexec.RetireSessions(pool)
	old = <-running
	if pid, err := backendOf(t.Context(), exec, 0); err != nil || pid == old {
		t.Errorf("a request after a retirement during the last one: backend %d (%v), want another than the retired %d", pid, err, old)
	}
}

// hammer runs requests on exec, one after another, until the test ends.
func hammer(t *testing.T, exec *dbexec.Executor, each func(pid int64)) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			pid, err := backendOf(ctx, exec, 0)
			if err != nil {
				if ctx.Err() == nil {
					t.Error(err)
				}
				return
			}
			each(pid)
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// TestShelfLetsOthersIn: while requests keep the pool's one session busy,
// what takes a session from pgxpool directly (here a ping, as the admin's
// /ready does) still gets it: the session goes back to pgxpool every few
// ticks.
func TestShelfLetsOthersIn(t *testing.T) {
	pool, exec := shelfPool(t, 1, 10*time.Second, nil)
	var mu sync.Mutex
	served := 0
	hammer(t, exec, func(int64) { mu.Lock(); served++; mu.Unlock() })
	waitFor(t, 10*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return served > 10 })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := pool.Ping(ctx); err != nil {
		t.Fatalf("a ping while requests keep the pool's session busy: %v", err)
	}
}

// TestShelfSessionsAge: a session kept busy by requests is still closed
// once past db-pool-max-lifetime, as pgxpool closes its own.
func TestShelfSessionsAge(t *testing.T) {
	_, exec := shelfPool(t, 1, 10*time.Second, func(cfg *config.Config) { cfg.DBPoolMaxLifetime = 300 * time.Millisecond })
	var mu sync.Mutex
	pids := map[int64]bool{}
	hammer(t, exec, func(pid int64) { mu.Lock(); pids[pid] = true; mu.Unlock() })
	waitFor(t, 10*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(pids) > 1 })
}
