package pgtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestReplicaSet proves the standbys stream: a row written on the primary
// is read on each standby once replayed, the standbys are in recovery and
// refuse writes, and a promoted standby leaves recovery and takes writes.
func TestReplicaSet(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	set, err := StartReplicaSet(ctx, 2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Stop()
	mustExec(t, set.Primary, "create table streamed (id int); insert into streamed values (42)")
	if err := WaitReplayed(ctx, set.Primary, set.Standbys...); err != nil {
		t.Fatal(err)
	}
	for _, s := range set.Standbys {
		var id int
		var recovering bool
		if err := query(t, s, "select id, pg_is_in_recovery() from streamed").Scan(&id, &recovering); err != nil || id != 42 || !recovering {
			t.Errorf("standby on port %d: id %d, in recovery %v, %v; want 42 from a standby", s.Port, id, recovering, err)
		}
		if err := execErr(s, "insert into streamed values (1)"); err == nil {
			t.Errorf("standby on port %d took a write", s.Port)
		}
	}

	promoted := set.Standbys[1]
	if err := promoted.Promote(ctx); err != nil {
		t.Fatal(err)
	}
	var recovering bool
	if err := query(t, promoted, "select pg_is_in_recovery()").Scan(&recovering); err != nil || recovering {
		t.Errorf("promoted standby: in recovery %v, %v", recovering, err)
	}
	if err := execErr(promoted, "insert into streamed values (2)"); err != nil {
		t.Errorf("promoted standby refused a write: %v", err)
	}
}

func mustExec(t *testing.T, c *Cluster, sql string) {
	t.Helper()
	if err := execErr(c, sql); err != nil {
		t.Fatal(err)
	}
}

func execErr(c *Cluster, sql string) error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.URI)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

func query(t *testing.T, c *Cluster, sql string) pgx.Row {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.URI)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn.QueryRow(ctx, sql)
}
