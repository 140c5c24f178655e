package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/sql/catalog"
	"github.com/svc-dev/svc/sql/snapstore"
)

// TestStaleHintsSayHowToRefresh migrates a schema after its snapshot was
// taken (a table, a column and a foreign key added) and asks for each:
// the answer's advice (the SVC-Advice header; the body is PostgREST's)
// names the snapshot and the step that makes the new name known, which
// depends on where the snapshot comes from. A file must
// be dumped again before a reload reads anything new; a published
// snapshot is replaced by publishing. Live introspection's "reload" is in
// the case files.
func TestStaleHintsSayHowToRefresh(t *testing.T) {
	ctx := t.Context()
	db := superConn(t)
	exec := func(sql string) {
		t.Helper()
		mustExec(t, db, sql)
	}
	reset := func() {
		exec(`drop schema if exists stalehint, stalehint_snaps cascade;
			create schema stalehint;
			create table stalehint.shelves (id int primary key);
			create table stalehint.books (id int primary key);
			grant usage on schema stalehint to web_anon;
			grant select on all tables in schema stalehint to web_anon`)
	}
	migrate := func() {
		exec(`alter table stalehint.shelves add column label text;
			alter table stalehint.books add column shelf_id int references stalehint.shelves;
			create table stalehint.tags (name text primary key);
			grant select on all tables in schema stalehint to web_anon`)
	}
	t.Cleanup(func() { db.Exec(ctx, "drop schema if exists stalehint, stalehint_snaps cascade") })
	take := func() *snapshot.Snapshot {
		t.Helper()
		snap, err := catalog.Introspect(ctx, db, catalog.Options{Schemas: []string{"stalehint"}})
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	cfg := *fixture.cfg
	cfg.DBSchemas = []string{"stalehint"}

	for _, c := range []struct {
		name   string
		source func(snap *snapshot.Snapshot) reload.Source
		step   string
	}{
		{"file", func(snap *snapshot.Snapshot) reload.Source {
			path := filepath.Join(t.TempDir(), "api.msgpack")
			if _, err := snapshot.WriteFile(path, snap); err != nil {
				t.Fatal(err)
			}
			return reload.FileSource{Path: path}
		}, "dump the snapshot file again (svc-introspect dump), then reload the schema snapshot."},
		{"database", func(snap *snapshot.Snapshot) reload.Source {
			_, err := snapstore.Publish(ctx, db, snap, snapstore.Options{Schema: "stalehint_snaps", GrantTo: []string{"authenticator"}})
			if err != nil {
				t.Fatal(err)
			}
			return reload.DBSource{URI: fixture.authURI, Schema: "stalehint_snaps"}
		}, "publish a new snapshot (svc-introspect publish), which has the servers reload it."},
	} {
		t.Run(c.name, func(t *testing.T) {
			reset()
			srv, _, err := startServer(ctx, &cfg, c.source(take()))
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			migrate()
			for _, r := range []struct {
				path, code, sentence string
			}{
				{"/tags", "42P01", "does not have it; if it was created since, "},
				{"/shelves?select=id,label", "42703", `does not have a column "label" of shelves; if it was added since, `},
				{"/books?select=id,shelves(id)", "SVC200", "does not have a relationship between 'books' and 'shelves'; if it was added since, "},
			} {
				code, hint, advice := errorAdvice(t, srv.URL+r.path)
				if code != r.code || !strings.Contains(advice, "The schema snapshot in use (fingerprint ") ||
					!strings.HasSuffix(advice, r.sentence+c.step) || strings.Contains(hint, "snapshot") {
					t.Errorf("GET %s: %s, hint %q, advice %q; want %s, advice ending %q", r.path, code, hint, advice, r.code, r.sentence+c.step)
				}
			}
		})
	}
}

// errorAdvice returns the code and hint ("" for null) of the error GET
// url answers, and its advice header.
func errorAdvice(t *testing.T, url string) (code, hint, advice string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var e struct {
		Code string  `json:"code"`
		Hint *string `json:"hint"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Code == "" {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	if e.Hint != nil {
		hint = *e.Hint
	}
	return e.Code, hint, resp.Header.Get(apierr.AdviceHeader)
}
