package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorsSayWhatToDo: each mistake is answered with its fix. A dump
// given no database says how to name one; a mistyped schema gets the
// closest existing name; a publish run as a role that may not create the
// snapshot schema says which role it needs and how to pass it.
func TestErrorsSayWhatToDo(t *testing.T) {
	t.Run("no database named", func(t *testing.T) {
		// libpq's defaults, pointed at a port nothing listens on.
		t.Setenv("PGHOST", "127.0.0.1")
		t.Setenv("PGPORT", "1")
		t.Setenv("SVC_DB_URI", "")
		os.Unsetenv("SVC_DB_URI")
		code, _, stderr := svcIntrospect(t, "dump", "-o", filepath.Join(t.TempDir(), "s.msgpack"))
		if code != exitError || !strings.Contains(stderr, "pass --config with the file svc-serve runs with, or --db-uri") {
			t.Errorf("status %d, stderr %q", code, stderr)
		}
		// A database named and away is another matter.
		code, _, stderr = svcIntrospect(t, "dump", "--db-uri", "postgres://127.0.0.1:1/x", "-o", filepath.Join(t.TempDir(), "s.msgpack"))
		if code != exitError || strings.Contains(stderr, "no database was named") {
			t.Errorf("with --db-uri: status %d, stderr %q", code, stderr)
		}
	})

	t.Run("mistyped schema", func(t *testing.T) {
		execSQL(t, "create schema if not exists errs_api")
		code, _, stderr := svcIntrospect(t, "dump", "--db-uri", dbURI, "--db-schemas", "errs_apo", "-o", filepath.Join(t.TempDir(), "s.msgpack"))
		want := `exposed schema "errs_apo" does not exist (db-schemas); did you mean "errs_api" for "errs_apo"?`
		if code != exitError || !strings.Contains(stderr, want) {
			t.Errorf("status %d, stderr %q; want %s", code, stderr, want)
		}
	})

	t.Run("publish as the servers' role", func(t *testing.T) {
		execSQL(t, `do $$ begin
			  if not exists (select from pg_roles where rolname = 'errs_reader') then create role errs_reader login; end if;
			end $$`)
		path := filepath.Join(t.TempDir(), "s.msgpack")
		if code, _, stderr := svcIntrospect(t, "dump", "--db-uri", dbURI, "--db-schemas", "public", "-o", path); code != 0 {
			t.Fatalf("dump: %d %s", code, stderr)
		}
		u, _ := url.Parse(dbURI)
		u.User = url.User("errs_reader")
		code, _, stderr := svcIntrospect(t, "publish", "--db-uri", u.String(), "--file", path, "--schema", "errs_snaps")
		for _, want := range []string{"permission denied for database",
			`publish ran as role "errs_reader" (db-uri), which may not: it creates the schema "errs_snaps" the first time (CREATE on the database)`,
			"Pass that role's URI with --db-uri, which overrides the one in --config"} {
			if code != exitError || !strings.Contains(stderr, want) {
				t.Errorf("status %d, stderr %q; want %s", code, stderr, want)
			}
		}
	})
}
