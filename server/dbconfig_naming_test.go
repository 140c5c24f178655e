package server_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/reload"
)

// TestForeignDatabaseSettings: under SVC's names, the authenticator's
// pgrst.db_max_rows (PostgREST's in-database configuration) is never
// ignored in silence (issue 56). Alone, it stops the start and fails a
// configuration reload, the old configuration kept, with the statements
// that move it to svc.db_max_rows; beside svc.db_max_rows, which would
// win under either naming, it is logged.
func TestForeignDatabaseSettings(t *testing.T) {
	db := superConn(t)
	exec := func(sql string) {
		t.Helper()
		if _, err := db.Exec(context.Background(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	t.Cleanup(func() {
		db.Exec(context.Background(), "alter role authenticator in database e2e reset pgrst.db_max_rows")
		db.Exec(context.Background(), "alter role authenticator in database e2e reset svc.db_max_rows")
	})
	sources := config.Sources{Flags: map[string]string{"db-uri": fixture.authURI, "db-schemas": "test",
		"db-anon-role": "web_anon", "compat-names": "svc"}}
	const fix = `in-database setting pgrst.db_max_rows is compat-names = postgrest's, and this server runs under compat-names = svc, ` +
		`which reads svc.* settings: set compat-names = postgrest to read it, or run: ` +
		`ALTER ROLE "authenticator" IN DATABASE "e2e" SET svc.db_max_rows = '1'; ALTER ROLE "authenticator" IN DATABASE "e2e" RESET pgrst.db_max_rows;`

	exec("alter role authenticator in database e2e set pgrst.db_max_rows = '1'")
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	if _, err := reload.ResolveConfig(t.Context(), sources, log); err == nil || !strings.HasSuffix(err.Error(), fix) {
		t.Errorf("start with pgrst.db_max_rows: %v\nwant an error ending %s", err, fix)
	}

	exec("alter role authenticator in database e2e set svc.db_max_rows = '3'")
	logged.Reset()
	cfg, err := reload.ResolveConfig(t.Context(), sources, log)
	if err != nil || cfg.DBMaxRows != 3 {
		t.Fatalf("start with svc.db_max_rows beside it: %v, db-max-rows %v; want 3", err, cfg)
	}
	const note = "in-database setting pgrst.db_max_rows is compat-names = postgrest's and is not read under compat-names = svc; " +
		"svc.db_max_rows, which is read, sets db-max-rows"
	if !strings.Contains(logged.String(), note) {
		t.Errorf("log %q\nwant %q", logged.String(), note)
	}

	exec("alter role authenticator in database e2e reset pgrst.db_max_rows")
	rt, _ := startRuntime(t, sources, "")
	exec("alter role authenticator in database e2e reset svc.db_max_rows")
	exec("alter role authenticator in database e2e set pgrst.db_max_rows = '1'")
	if err := rt.ReloadConfig(t.Context()); err == nil || !strings.HasSuffix(err.Error(), fix) || rt.Config().DBMaxRows != 3 {
		t.Errorf("reload with pgrst.db_max_rows: %v, db-max-rows %d; want an error ending %s, and 3 kept", err, rt.Config().DBMaxRows, fix)
	}
}
