package replica_test

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestUnchangedReloadRequiresPosition: a migration that changes only what
// no snapshot holds (a row-level security policy) leaves the snapshot and
// the object ids as they were, so its reload puts nothing in force and
// retires no session. The replicas must still have replayed it before
// they serve reads again: a read after the reload sees the new policy, on
// the primary while the replica lags.
func TestUnchangedReloadRequiresPosition(t *testing.T) {
	primary := fixture.set.Primary
	sql(t, primary, `create table api.rls_seen (id int primary key);
		alter table api.rls_seen enable row level security;
		create policy seen on api.rls_seen for select using (true);
		grant select on api.rls_seen to web_anon;
		insert into api.rls_seen values (1);`)
	t.Cleanup(func() { sql(t, primary, "drop table api.rls_seen") })
	cfg := testConfig()
	// A lag the paused replica stays within, so that only the position
	// keeps it from serving reads.
	cfg.DBReplicaMaxLag = time.Minute
	ts := startServer(t, cfg, nil, 0)
	rep := ts.Replicas.Replicas()[0]
	waitFor(t, "the replica healthy and past the snapshot's position", func() bool {
		st := rep.Status()
		return st.Healthy && st.Replayed >= ts.Replicas.Required()
	})
	if resp, body := ts.do(t, "GET", "/rls_seen?select=id", nil, ""); resp.StatusCode != http.StatusOK || body != `[{"id":1}]` {
		t.Fatalf("before the migration: %d %s", resp.StatusCode, body)
	}

	pauseReplay(t, 0)
	t.Cleanup(func() { resumeReplay(t, 0) })
	sql(t, primary, "alter policy seen on api.rls_seen using (false)")
	inForce := ts.Snaps.Current()
	// The reload that would wait a minute for the paused replica is
	// given less.
	short, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := ts.Snaps.Reload(short); err != nil {
		t.Fatal(err)
	}
	if ts.Snaps.Current() != inForce {
		t.Error("the reload put another snapshot in force, though nothing a snapshot holds changed")
	}
	if !rep.Status().Healthy {
		t.Fatalf("the paused replica is not healthy: %+v", rep.Status())
	}
	if resp, body := ts.do(t, "GET", "/rls_seen?select=id", nil, ""); resp.StatusCode != http.StatusOK || body != "[]" {
		t.Errorf("a read after the reload: %d %s, want [] (the new policy)", resp.StatusCode, body)
	}
}
