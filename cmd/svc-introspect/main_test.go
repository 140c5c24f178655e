package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/sql/pgtest"
)

// dbURI connects as a superuser to a database of the tests' own.
var dbURI string

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, func(uri string) (err error) {
		dbURI, err = pgtest.FreshDatabase(context.Background(), uri, "introspect_cmd")
		return err
	}))
}

// svcIntrospect runs the program with args and returns its exit status,
// standard output and standard error.
func svcIntrospect(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"svc-introspect"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func execSQL(t *testing.T, sql string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dbURI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// TestDiffAfterMigration dumps a schema, migrates it (a table and a column
// added, a column dropped), dumps again, and checks what diff says and
// the exit status --fail-on-breaking gives. It then publishes the old
// snapshot and refuses to publish the new one over it.
func TestDiffAfterMigration(t *testing.T) {
	execSQL(t, `create schema shop;
		create table shop.items (id int primary key, name text not null, sku text);
		create role shop_anon nologin;
		grant usage on schema shop to shop_anon;
		grant select on shop.items to shop_anon`)
	dir := t.TempDir()
	before, after := filepath.Join(dir, "before.msgpack"), filepath.Join(dir, "after.msgpack")
	if code, _, stderr := svcIntrospect(t, "dump", "--db-uri", dbURI, "--db-schemas", "shop", "-o", before); code != 0 {
		t.Fatalf("dump: %d %s", code, stderr)
	}
	execSQL(t, `create table shop.orders (id int primary key, item_id int references shop.items);
		alter table shop.items add column price numeric;
		alter table shop.items drop column sku`)
	if code, _, stderr := svcIntrospect(t, "dump", "--db-uri", dbURI, "--db-schemas", "shop", "-o", after); code != 0 {
		t.Fatalf("dump: %d %s", code, stderr)
	}

	code, stdout, _ := svcIntrospect(t, "diff", before, after)
	want := `         shop.items -> shop.orders (one-to-many via orders_item_id_fkey): relationship added
         shop.items.price: column added (numeric, nullable)
BREAKING shop.items.sku: column removed (was text); select, filters and writes naming it fail
         shop.orders: relation added (table)
4 changes, 1 breaking
`
	if code != 0 || stdout != want {
		t.Errorf("diff: status %d, output\n%s\nwant\n%s", code, stdout, want)
	}
	code, _, stderr := svcIntrospect(t, "diff", "--fail-on-breaking", before, after)
	if code != exitBreaking || !strings.Contains(stderr, "1 breaking API change") {
		t.Errorf("diff --fail-on-breaking: status %d, stderr %q; want %d", code, stderr, exitBreaking)
	}
	// Flags after the files mean the same.
	if code, _, stderr := svcIntrospect(t, "diff", before, after, "--fail-on-breaking"); code != exitBreaking {
		t.Errorf("diff OLD NEW --fail-on-breaking: status %d, stderr %q; want %d", code, stderr, exitBreaking)
	}
	if code, stdout, stderr := svcIntrospect(t, "inspect", after, "--json"); code != 0 || !strings.HasPrefix(stdout, "{") {
		t.Errorf("inspect FILE --json: status %d, %q %s", code, stdout, stderr)
	}
	if code, stdout, _ := svcIntrospect(t, "diff", "--fail-on-breaking", after, after); code != 0 || stdout != "no API changes\n" {
		t.Errorf("diff of a file with itself: status %d, %q", code, stdout)
	}
	// Adding back what was removed is not breaking; removing the table is.
	if code, _, _ := svcIntrospect(t, "diff", "--fail-on-breaking", after, before); code != exitBreaking {
		t.Errorf("reverse diff: status %d, want %d", code, exitBreaking)
	}

	code, stdout, _ = svcIntrospect(t, "diff", "--json", before, after)
	var report struct {
		Old      string            `json:"old_fingerprint"`
		Breaking bool              `json:"breaking"`
		Changes  []snapshot.Change `json:"changes"`
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil || code != 0 {
		t.Fatalf("diff --json: status %d, %v\n%s", code, err, stdout)
	}
	if !report.Breaking || len(report.Changes) != 4 || report.Changes[2].Kind != snapshot.ColumnRemoved ||
		report.Changes[2].Object != "shop.items.sku" || len(report.Old) != 64 {
		t.Errorf("diff --json: %+v", report)
	}

	for _, args := range [][]string{
		{"diff", before},
		{"diff", before, filepath.Join(dir, "missing.msgpack")},
		{"diff", "--no-such-flag", before, after},
	} {
		if code, _, stderr := svcIntrospect(t, args...); code != exitError {
			t.Errorf("%v: status %d, want %d (%s)", args, code, exitError, stderr)
		}
	}

	// Publish the old snapshot, then refuse the breaking new one.
	t.Cleanup(func() { execSQL(t, "drop schema if exists shop_snaps cascade") })
	code, stdout, stderr = svcIntrospect(t, "publish", "--db-uri", dbURI, "--file", before, "--schema", "shop_snaps")
	if code != 0 || !strings.Contains(stdout, `created schema "shop_snaps"`) || !strings.Contains(stdout, ": stored and activated; notified svc") ||
		!strings.Contains(stderr, `GRANT USAGE ON SCHEMA "shop_snaps" TO "<role>"`) {
		t.Errorf("publish: status %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = svcIntrospect(t, "publish", "--db-uri", dbURI, "--db-schemas", "shop", "--schema", "shop_snaps", "--fail-on-breaking")
	if code != exitBreaking || !strings.Contains(stdout, "BREAKING shop.items.sku: column removed") {
		t.Errorf("publish --fail-on-breaking: status %d\n%s", code, stdout)
	}
	code, stdout, _ = svcIntrospect(t, "publish", "--db-uri", dbURI, "--file", before, "--schema", "shop_snaps", "--channel", "")
	if code != 0 || !strings.HasSuffix(stdout, ": already active\n") {
		t.Errorf("publish again: status %d\n%s", code, stdout)
	}
	if code, _, stderr := svcIntrospect(t, "publish", "--db-uri", dbURI, "--file", before, "--db-schemas", "shop"); code != exitError ||
		!strings.Contains(stderr, "not both") {
		t.Errorf("publish --file --db-schemas: status %d, %s", code, stderr)
	}
}

// TestInspectShowsComputedFieldsAndCasts dumps a schema with a computed
// field, a domain representation and media handlers, and checks inspect
// lists them.
func TestInspectShowsComputedFieldsAndCasts(t *testing.T) {
	execSQL(t, `create schema paint;
		create domain paint.hue as integer;
		create function paint.hue_json(paint.hue) returns json language sql immutable as 'select to_json($1::integer)';
		create cast (paint.hue as json) with function paint.hue_json(paint.hue) as implicit;
		create table paint.cans (id int primary key, hue paint.hue);
		create function paint.label(paint.cans) returns text language sql stable as 'select ''can '' || $1.id';
		create domain paint."text/html" as text;
		create function paint.html_step(state paint."text/html", next paint.cans) returns paint."text/html"
			language sql immutable as 'select (state || $2.id)::paint."text/html"';
		create aggregate paint.cans_html(paint.cans) (stype = paint."text/html", sfunc = paint.html_step, initcond = '');
		create function paint.poster() returns paint."text/html" language sql stable as 'select ''<p>''::paint."text/html"'`)
	t.Cleanup(func() { execSQL(t, "drop schema paint cascade") })
	file := filepath.Join(t.TempDir(), "paint.msgpack")
	if code, _, stderr := svcIntrospect(t, "dump", "--db-uri", dbURI, "--db-schemas", "paint", "-o", file); code != 0 {
		t.Fatalf("dump: %d %s", code, stderr)
	}
	code, stdout, stderr := svcIntrospect(t, "inspect", file)
	if code != 0 {
		t.Fatalf("inspect: %d %s", code, stderr)
	}
	for _, want := range []string{
		"table paint.cans (id integer, hue paint.hue) primary key (id)\n    computed label text via paint.label\n",
		"\ncast paint.hue -> json via paint.hue_json\n",
		"function paint.poster() scalar paint.text/html, stable, answers text/html\n",
		"\nmedia text/html for paint.cans via paint.cans_html\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestVersion: --version names SVC's version and the snapshot format
// dump writes, which servers check.
func TestVersion(t *testing.T) {
	code, stdout, stderr := svcIntrospect(t, "--version")
	want := "svc-introspect version " + snapshot.SVCVersion + " (snapshot format " + strconv.Itoa(snapshot.FormatVersion) + ")\n"
	if code != 0 || stdout != want {
		t.Errorf("--version: status %d, %q %q; want %q", code, stdout, stderr, want)
	}
}
