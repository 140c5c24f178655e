package server_test

import (
	"context"
	"net/http"
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
