package server_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/sql/catalog"
	"github.com/svc-dev/svc/sql/snapstore"
)

// TestDBSource serves the snapshot published in the database (snapshot =
// "db:<schema>") and swaps in a newly published one on the NOTIFY that
// publishing sends, without a catalog query of its own.
func TestDBSource(t *testing.T) {
	ctx := t.Context()
	db := superConn(t)
	exec := func(sql string) {
		t.Helper()
		mustExec(t, db, sql)
	}
	exec(`create schema dbsource;
		create table dbsource.shelves (id int primary key);
		grant usage on schema dbsource to web_anon;
		grant select on all tables in schema dbsource to web_anon`)
	t.Cleanup(func() {
		db.Exec(context.Background(), "drop schema if exists dbsource, dbsource_snaps cascade")
	})
	publish := func() {
		t.Helper()
		snap, err := catalog.Introspect(ctx, db, catalog.Options{Schemas: []string{"dbsource"}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = snapstore.Publish(ctx, db, snap, snapstore.Options{Schema: "dbsource_snaps",
			Channel: "svc_dbsource_test", GrantTo: []string{"authenticator"}})
		if err != nil {
			t.Fatal(err)
		}
	}
	publish()

	sources := config.Sources{Flags: map[string]string{"db-uri": fixture.authURI, "db-schemas": "dbsource",
		"db-anon-role": "web_anon", "db-config": "false", "snapshot": "db:dbsource_snaps"}}
	rt, url := startRuntime(t, sources, "svc_dbsource_test")
	if got := rt.Config().Snapshot; got != "db:dbsource_snaps" {
		t.Fatalf("snapshot setting %q", got)
	}
	if got := status(t, url+"/shelves"); got != http.StatusOK {
		t.Errorf("GET /shelves: %d", got)
	}
	if got := status(t, url+"/books"); got != http.StatusNotFound {
		t.Errorf("GET /books: %d, want 404 (not in the published schema)", got)
	}

	// A new table is served once published, not before: the server reads
	// only the published snapshot.
	exec("create table dbsource.books (id int primary key); grant select on dbsource.books to web_anon")
	exec("notify svc_dbsource_test, 'reload schema'")
	time.Sleep(200 * time.Millisecond)
	if got := status(t, url+"/books"); got != http.StatusNotFound {
		t.Errorf("GET /books before publishing: %d, want 404", got)
	}
	publish()
	eventually(t, url+"/books", http.StatusOK, 5*time.Second)

	// A published snapshot that does not cover db-schemas is refused on
	// reload, as at start, and the one in force keeps serving.
	other, err := catalog.Introspect(ctx, db, catalog.Options{Schemas: []string{"test"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snapstore.Publish(ctx, db, other, snapstore.Options{Schema: "dbsource_snaps",
		Channel: "svc_dbsource_test", GrantTo: []string{"authenticator"}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if got := status(t, url+"/shelves"); got != http.StatusOK {
		t.Errorf("GET /shelves after publishing a snapshot of schema test only: %d, want 200", got)
	}
}

// TestDBSourceNotPublished says what to run when the database holds no
// published snapshot, and which schema it looked in.
func TestDBSourceNotPublished(t *testing.T) {
	for _, tc := range []struct{ setting, want string }{
		{"db", `relation "svc_snapshots.active" does not exist; run svc-introspect publish to create the snapshot tables in schema svc_snapshots`},
		{"db:nowhere", `run svc-introspect publish --schema nowhere`},
		{"db:", `snapshot = "db:" names no schema`},
	} {
		cfg, _, err := config.Load(config.Sources{Flags: map[string]string{"db-uri": fixture.authURI, "snapshot": tc.setting}})
		if err != nil {
			t.Fatal(err)
		}
		src := reload.SourceFor(cfg, nil)
		if _, ok := src.(reload.DBSource); !ok {
			t.Fatalf("%s: source %T, want DBSource", tc.setting, src)
		}
		snaps := reload.NewSnapshots(src, slog.New(slog.NewTextHandler(io.Discard, nil)))
		err = snaps.Reload(t.Context())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v\nwant it to contain %s", tc.setting, err, tc.want)
		}
		if tc.setting != "db:" && !errors.Is(err, snapstore.ErrNotPublished) {
			t.Errorf("%s: %v does not wrap ErrNotPublished", tc.setting, err)
		}
	}
	// A file path stays a file.
	cfg, _, _ := config.Load(config.Sources{Flags: map[string]string{"snapshot": "./db"}})
	if src, ok := reload.SourceFor(cfg, nil).(reload.FileSource); !ok || src.Path != "./db" {
		t.Errorf("./db: source %#v", reload.SourceFor(cfg, nil))
	}
}
