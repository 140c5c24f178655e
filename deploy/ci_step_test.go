package deploy_test

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/sql/pgtest"
	"github.com/svc-dev/svc/sql/snapstore"
)

// TestSnapshotStep runs deploy/ci/snapshot-step.sh as CI would: the first
// publish lets the servers' role (GRANT_TO) read the snapshot, an additive
// migration publishes, a breaking one is refused (and shown), and
// ALLOW_BREAKING publishes it on purpose.
func TestSnapshotStep(t *testing.T) {
	ctx := context.Background()
	c, err := pgtest.Start(ctx, pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	conn, err := pgx.Connect(ctx, c.URI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	exec1 := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec1("create schema api; create table api.items (id int primary key, name text, price numeric); create role fleet login")
	dir := t.TempDir()
	_, introspect := buildPrograms(t, dir)
	step := func(previous string, extra ...string) (string, error) {
		cmd := exec.Command("bash", "ci/snapshot-step.sh")
		cmd.Env = append(os.Environ(), "SVC_DB_URI="+c.URI, "SVC_DB_SCHEMAS=api", "SVC_INTROSPECT="+introspect,
			"SNAPSHOT_OUT="+filepath.Join(dir, "new.msgpack"), "PREVIOUS="+previous, "GRANT_TO=fleet")
		cmd.Env = append(cmd.Env, extra...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := step(""); err != nil {
		t.Fatalf("first publish: %v\n%s", err, out)
	}
	fleetURI, err := url.Parse(c.URI)
	if err != nil {
		t.Fatal(err)
	}
	fleetURI.User = url.User("fleet")
	fleet, err := pgx.Connect(ctx, fleetURI.String())
	if err != nil {
		t.Fatal(err)
	}
	defer fleet.Close(ctx)
	if _, err := snapstore.Load(ctx, fleet, snapstore.DefaultSchema); err != nil {
		t.Fatalf("the servers' role after the first publish: %v", err)
	}
	previous := filepath.Join(dir, "previous.msgpack")
	keep := func() {
		data, err := os.ReadFile(filepath.Join(dir, "new.msgpack"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(previous, data, 0o644)
	}
	keep()

	exec1("alter table api.items add column note text")
	if out, err := step(previous); err != nil {
		t.Fatalf("additive change: %v\n%s", err, out)
	}
	keep()

	exec1("alter table api.items drop column price")
	out, err := step(previous)
	if err == nil || !strings.Contains(out, "BREAKING") {
		t.Fatalf("breaking change published: %v\n%s", err, out)
	}
	if out, err := step(previous, "ALLOW_BREAKING=1"); err != nil {
		t.Fatalf("ALLOW_BREAKING: %v\n%s", err, out)
	}
}
