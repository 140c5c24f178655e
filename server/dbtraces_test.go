package server_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/reload"
)

// TestDatabaseTraces: a database whose functions raise SQLSTATE 'PGRST'
// or notify pgrst, as PostgREST's deployments write them, is named at
// start under SVC's names, with the naming in force and what
// compat-names = postgrest would change (issue 56).
func TestDatabaseTraces(t *testing.T) {
	db := superConn(t)
	if _, err := db.Exec(t.Context(), `drop schema if exists pgrsttrace cascade;
		create schema pgrsttrace;
		create function pgrsttrace.checkout() returns void language plpgsql as $$
		begin raise sqlstate 'PGRST' using message = '{"code":"123","message":"no"}', detail = '{"status":402,"headers":{}}'; end $$;
		create function pgrsttrace.after_migration() returns event_trigger language plpgsql as $$
		begin notify pgrst, 'reload schema'; end $$;
		create function pgrsttrace.unrelated() returns int language sql as $$ select 1 $$`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec(t.Context(), "drop schema if exists pgrsttrace cascade") })
	var logged bytes.Buffer
	reload.NoteDatabaseTraces(t.Context(), apierr.SVCNaming, fixture.authURI, slog.New(slog.NewTextHandler(&logged, nil)))
	line := logged.String()
	for _, want := range []string{
		"functions of the database use compat-names = postgrest's names (",
		"pgrsttrace.after_migration() notifies pgrst;",
		"pgrsttrace.checkout() raises SQLSTATE 'PGRST'",
		"): a trace of compat-names = postgrest, and this server runs under compat-names = svc; " +
			"compat-names = postgrest would change error codes SVC100.. to PGRST100..",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("log:\n%s\nwant it to hold %q", line, want)
		}
	}
	if strings.Contains(line, "unrelated") || strings.Count(line, "\n") != 1 {
		t.Errorf("log:\n%s\nwant one line, naming only the functions that use PostgREST's names", line)
	}
}
