package server_test

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/snapshot"
)

// TestReloadStorm: 100 notifications a second for two seconds while
// clients read. Every reload retires the pool's sessions, so reloads are
// spaced (reload.ReloadSpacing): the storm costs a bounded number of
// reloads and new sessions, and every read is answered.
func TestReloadStorm(t *testing.T) {
	const poolSize = 4
	m := newMigration(t, "migr_storm", poolSize)
	var reloads atomic.Int64
	m.snaps.OnReload(func(*snapshot.Snapshot, time.Duration, error) { reloads.Add(1) })
	m.listen(t, "svc_storm")
	opened := m.srv.pool.Stat().NewConnsCount()

	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var reads, failed atomic.Int64
	for range 2 * poolSize {
		wg.Go(func() {
			for ctx.Err() == nil {
				status, body := m.happy(t)
				reads.Add(1)
				if status != http.StatusOK || body != wantHappy {
					failed.Add(1)
					t.Errorf("a read during the storm: %d %s", status, body)
				}
			}
		})
	}
	start := time.Now()
	tick := time.NewTicker(10 * time.Millisecond)
	for range 200 {
		<-tick.C
		m.exec(t, "notify svc_storm, 'reload schema'")
	}
	tick.Stop()
	// The last notification's reload starts within the spacing.
	time.Sleep(2 * reload.ReloadSpacing)
	stop()
	wg.Wait()
	elapsed := time.Since(start)

	// Each reload starts ReloadSpacing after the last at the soonest: the
	// bound holds however slow the machine, which only means fewer.
	bound := int64(elapsed/reload.ReloadSpacing) + 1
	if n := reloads.Load(); n < 1 || n > bound {
		t.Errorf("%d reloads for 200 notifications in %s; want 1 to %d", n, elapsed.Round(time.Millisecond), bound)
	}
	// Each reload retires at most the pool's sessions, and each is
	// replaced once when a request needs it.
	newSessions := m.srv.pool.Stat().NewConnsCount() - opened
	if max := (reloads.Load() + 1) * poolSize; newSessions > max {
		t.Errorf("%d sessions opened for %d reloads of a pool of %d", newSessions, reloads.Load(), poolSize)
	}
	t.Logf("%d reads (%d failed), %d reloads, %d sessions opened in %s", reads.Load(), failed.Load(), reloads.Load(), newSessions, elapsed.Round(time.Millisecond))
}

// TestNotifyStormChangesNothing: hundreds of notifications from a role
// that may connect and nothing more, while clients read. Every one asks
// for a reload, and every reload finds the schema as it is in force (the
// same fingerprint, the same object ids): none retires a pooled session,
// and the snapshot in force stays. The reads' rate with and without the
// storm is logged, not asserted: it depends on the machine.
func TestNotifyStormChangesNothing(t *testing.T) {
	const poolSize = 4
	// The role first: the snapshot knows the roles, to which it lists
	// grants.
	super := e2eConn(t, fixture.superURI)
	if _, err := super.Exec(context.Background(), "drop role if exists storm_nobody; create role storm_nobody login"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { super.Exec(context.Background(), "drop role if exists storm_nobody") })
	m := newMigration(t, "migr_nochange", poolSize)
	var reloads atomic.Int64
	m.snaps.OnReload(func(*snapshot.Snapshot, time.Duration, error) { reloads.Add(1) })
	m.listen(t, "svc_nochange")
	u, _ := url.Parse(fixture.superURI)
	u.User = url.User("storm_nobody")
	nobody := e2eConn(t, u.String())

	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var reads atomic.Int64
	for range 2 * poolSize {
		wg.Go(func() {
			for ctx.Err() == nil {
				if status, body := m.happy(t); status != http.StatusOK || body != wantHappy {
					t.Errorf("a read: %d %s", status, body)
				}
				reads.Add(1)
			}
		})
	}
	// Without the storm first: the clients fill the pool.
	const phase = 2 * time.Second
	time.Sleep(phase)
	quiet := reads.Load()
	opened := m.srv.pool.Stat().NewConnsCount()
	inForce := m.snaps.Current()

	start := time.Now()
	tick := time.NewTicker(phase / 400)
	for range 400 {
		<-tick.C
		if _, err := nobody.Exec(context.Background(), "notify svc_nochange, 'reload schema'"); err != nil {
			t.Fatal(err)
		}
	}
	tick.Stop()
	elapsed := time.Since(start)
	stormy := reads.Load() - quiet
	// The last notification's reload starts within the spacing.
	time.Sleep(2 * reload.ReloadSpacing)
	stop()
	wg.Wait()

	if reloads.Load() < 2 {
		t.Fatalf("%d reloads for 400 notifications: the storm did not reach the server", reloads.Load())
	}
	if n := m.srv.pool.Stat().NewConnsCount() - opened; n != 0 {
		t.Errorf("%d reloads that found nothing changed had the pool open %d sessions", reloads.Load(), n)
	}
	if m.snaps.Current() != inForce {
		t.Error("a reload that found nothing changed put another snapshot in force")
	}
	t.Logf("reads: %.0f/s without the storm, %.0f/s during it (400 notifications, %d reloads in %s)",
		float64(quiet)/phase.Seconds(), float64(stormy)/elapsed.Seconds(), reloads.Load(), elapsed.Round(time.Millisecond))
}
