package main

import (
	"context"
	"net/url"
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

// TestPublishReadsServersDatabaseSettings: servers whose db-config reads
// db-schemas from their role's in-database settings expose what the
// database says, not what their file says. A publish with --config that
// does not cover those schemas is refused, naming where they are set; the
// same publish with db-config off in the file, which the servers would
// then not read, goes through.
func TestPublishReadsServersDatabaseSettings(t *testing.T) {
	execSQL(t, `create schema dbset_a; create schema dbset_b;
		create table dbset_a.t (id int primary key); create table dbset_b.u (id int primary key);
		create role dbset_srv login; alter role dbset_srv set svc.db_schemas = 'dbset_a,dbset_b'`)
	t.Cleanup(func() {
		execSQL(t, "drop schema dbset_a, dbset_b cascade; drop schema if exists dbset_snaps cascade; drop role dbset_srv")
	})
	dir := t.TempDir()
	older := filepath.Join(dir, "a.msgpack")
	if code, _, stderr := svcIntrospect(t, "dump", "--db-uri", dbURI, "--db-schemas", "dbset_a", "-o", older); code != 0 {
		t.Fatalf("dump: %d %s", code, stderr)
	}
	u, err := url.Parse(dbURI)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User("dbset_srv")
	write := func(name, extra string) string {
		path := filepath.Join(dir, name)
		body := "db-uri = \"" + u.String() + "\"\ndb-schemas = \"dbset_a\"\n" + extra
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	publish := func(config string) (int, string, string) {
		return svcIntrospect(t, "publish", "--db-uri", dbURI, "--schema", "dbset_snaps", "--channel", "", "--file", older, "--config", config)
	}

	code, stdout, stderr := publish(write("svc.conf", ""))
	if code == 0 || !strings.Contains(stderr, "not dbset_b, which the servers expose (db-schemas set in the database for dbset_srv") ||
		!strings.Contains(stderr, "nothing was published") {
		t.Errorf("publish against servers exposing dbset_a,dbset_b by their role's settings: status %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := publish(write("nodb.conf", "db-config = false\n")); code != 0 {
		t.Errorf("publish against servers that do not read the database's settings: status %d\n%s%s", code, stdout, stderr)
	}
}
