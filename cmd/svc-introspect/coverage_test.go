package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestPublishRefusesUncoveredSnapshot: a rollback to a snapshot that does
// not cover a schema the servers expose (here, one dumped before roll_b
// was exposed) is refused, nothing published, with what to do instead;
// the servers would all refuse it and keep the newer one, and one starting
// would have nothing to serve. What the servers expose is known from the
// active snapshot, from --config, or from --servers-db-schemas, which
// also lets through a publish that drops a schema the servers no longer
// expose.
func TestPublishRefusesUncoveredSnapshot(t *testing.T) {
	execSQL(t, `create schema roll_a; create schema roll_b;
		create table roll_a.t (id int primary key); create table roll_b.u (id int primary key)`)
	t.Cleanup(func() { execSQL(t, "drop schema roll_a, roll_b cascade; drop schema if exists roll_snaps cascade") })
	dir := t.TempDir()
	older, newer := filepath.Join(dir, "a.msgpack"), filepath.Join(dir, "ab.msgpack")
	for file, schemas := range map[string]string{older: "roll_a", newer: "roll_a,roll_b"} {
		if code, _, stderr := svcIntrospect(t, "dump", "--db-uri", dbURI, "--db-schemas", schemas, "-o", file); code != 0 {
			t.Fatalf("dump: %d %s", code, stderr)
		}
	}
	publish := func(args ...string) (int, string, string) {
		return svcIntrospect(t, append([]string{"publish", "--db-uri", dbURI, "--schema", "roll_snaps", "--channel", ""}, args...)...)
	}
	if code, stdout, stderr := publish("--file", newer); code != 0 {
		t.Fatalf("publish the newer: %d %s%s", code, stdout, stderr)
	}
	activeNow := func() string {
		conn, err := pgx.Connect(context.Background(), dbURI)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		var fp string
		if err := conn.QueryRow(context.Background(), "select fingerprint from roll_snaps.active").Scan(&fp); err != nil {
			t.Fatal(err)
		}
		return fp
	}
	active := activeNow()

	config := filepath.Join(dir, "svc.conf")
	if err := os.WriteFile(config, []byte("db-uri = \""+dbURI+"\"\ndb-schemas = \"roll_a,roll_b\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		from string
	}{
		{"by the active snapshot", []string{"--file", older}, "the snapshot active now"},
		{"by --config", []string{"--file", older, "--config", config}, "db-schemas in " + config},
		{"by --servers-db-schemas", []string{"--file", older, "--servers-db-schemas", "roll_a,roll_b"}, "--servers-db-schemas"},
	} {
		code, stdout, stderr := publish(c.args...)
		if code == 0 || !strings.Contains(stderr, "not roll_b, which the servers expose ("+c.from) ||
			!strings.Contains(stderr, "svc-introspect publish --db-schemas roll_a,roll_b") || !strings.Contains(stderr, "nothing was published") {
			t.Errorf("%s: publish of the older snapshot: status %d\n%s%s", c.name, code, stdout, stderr)
		}
		if got := activeNow(); got != active {
			t.Errorf("%s: the refused publish moved the active snapshot to %.12s", c.name, got)
		}
	}
	// The servers no longer expose roll_b: said so, the older one goes.
	if code, stdout, stderr := publish("--file", older, "--servers-db-schemas", "roll_a"); code != 0 || activeNow() == active {
		t.Errorf("publish for servers exposing roll_a only: status %d\n%s%s", code, stdout, stderr)
	}
}
