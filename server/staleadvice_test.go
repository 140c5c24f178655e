package server_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
)

// TestStaleAdviceOnWritesAndCalls: after a column rename and before the
// reload, a write and a call meet the rename too, and their answers say
// so, right for the cause (issue 56): the database's 42703 for the old
// name the snapshot still has, SVC204 for the new name it lacks. An error
// a function raises itself, about a name no snapshot has, gets no advice.
func TestStaleAdviceOnWritesAndCalls(t *testing.T) {
	ctx := t.Context()
	db := superConn(t)
	exec := func(sql string) {
		t.Helper()
		mustExec(t, db, sql)
	}
	exec(`drop schema if exists staleadv cascade;
		create schema staleadv;
		create table staleadv.items (id int primary key, title text);
		create function staleadv.titles() returns setof staleadv.items stable language sql as $$ select * from staleadv.items $$;
		create function staleadv.broken() returns int language plpgsql as $$ begin return (select nowhere from staleadv.items); end $$;
		grant usage on schema staleadv to web_anon;
		grant all on staleadv.items to web_anon`)
	t.Cleanup(func() { db.Exec(ctx, "drop schema if exists staleadv cascade") })
	cfg := *fixture.cfg
	cfg.DBSchemas = []string{"staleadv"}
	srv, _, err := startServer(ctx, &cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	exec(`alter table staleadv.items rename column title to label`)

	const snap = `The schema snapshot in use (fingerprint <fingerprint>, taken <time>) `
	for _, c := range []struct {
		method, path, body string
		status             int
		code, advice       string
	}{
		{"POST", "/items", `{"id":1,"title":"x"}`, 400, "42703",
			snap + `has a column "title", which the database does not; if it was renamed or dropped since, reload the schema snapshot.`},
		{"POST", "/items", `{"id":2,"label":"y"}`, 400, "SVC204",
			snap + `does not have a column "label" of items; if it was added since, reload the schema snapshot.`},
		{"GET", "/items?select=id,title", "", 400, "42703",
			snap + `has a column "title", which the database does not; if it was renamed or dropped since, reload the schema snapshot.`},
		{"GET", "/rpc/titles?select=title", "", 400, "42703",
			snap + `has a column "title", which the database does not; if it was renamed or dropped since, reload the schema snapshot.`},
		{"POST", "/rpc/broken", `{}`, 400, "42703", ""},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Prefer", "return=representation")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		advice := snapshotNamed.ReplaceAllString(resp.Header.Get(apierr.AdviceHeader), "fingerprint <fingerprint>, taken <time>")
		if resp.StatusCode != c.status || !strings.Contains(string(body), `"code":"`+c.code+`"`) || advice != c.advice {
			t.Errorf("%s %s %s: %d %s, advice %q; want %d %s, advice %q", c.method, c.path, c.body, resp.StatusCode, body, advice,
				c.status, c.code, c.advice)
		}
	}
}

// TestMisspeltSchemasAdvice: a configuration whose db-schemas is misspelt
// as a key of its own (db-shemas, as PGRST_DB_SHEMAS would be) leaves
// db-schemas at public; the 404 every table then gets advises the typo,
// not a reload of the snapshot, which would change nothing (issue 56).
func TestMisspeltSchemasAdvice(t *testing.T) {
	file := filepath.Join(t.TempDir(), "svc.conf")
	conf := "db-uri = \"" + fixture.authURI + "\"\ndb-shemas = \"test\"\ndb-anon-role = \"web_anon\"\n"
	if err := os.WriteFile(file, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, warnings, err := config.Load(config.Sources{File: file})
	if err != nil || len(warnings) != 1 {
		t.Fatalf("%v %v", err, warnings)
	}
	srv, _, err := startServer(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/books")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `db-schemas is "public", and the configuration names something that looks meant for it ` +
		`(unknown configuration key "db-shemas" (config file ` + file + `, line 2); did you mean "db-schemas"?). ` +
		`Correct it and restart; a reload of the schema snapshot does not change the schemas exposed.`
	if got := resp.Header.Get(apierr.AdviceHeader); resp.StatusCode != 404 || got != want {
		t.Errorf("GET /books: %d %s, advice %q\nwant 404, advice %q", resp.StatusCode, body, got, want)
	}
}
