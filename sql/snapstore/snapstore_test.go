package snapstore_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/sql/catalog"
	"github.com/svc-dev/svc/sql/pgtest"
	"github.com/svc-dev/svc/sql/snapstore"
)

// superURI connects as a superuser to a database with a small api schema;
// fleetURI as a role that may only log in.
var superURI, fleetURI string

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, func(uri string) (err error) {
		ctx := context.Background()
		if superURI, err = pgtest.FreshDatabase(ctx, uri, "snapstore"); err != nil {
			return err
		}
		fleetURI = pgtest.AsUser(superURI, "fleet")
		err = pgtest.Exec(ctx, uri, "do $$ begin if not exists (select from pg_roles where rolname = 'fleet') then create role fleet login; end if; end $$")
		if err != nil {
			return err
		}
		return pgtest.Exec(ctx, superURI, "create schema api; create table api.books (id int primary key, title text)")
	}))
}

func connect(t *testing.T, uri string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func dump(t *testing.T, conn *pgx.Conn) *snapshot.Snapshot {
	t.Helper()
	snap, err := catalog.Introspect(t.Context(), conn, catalog.Options{Schemas: []string{"api"}, GeneratorVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// listen returns a function that waits for the next notification on
// channel and returns its payload.
func listen(t *testing.T, channel string) func() string {
	t.Helper()
	conn := connect(t, superURI)
	if _, err := conn.Exec(t.Context(), "listen "+channel); err != nil {
		t.Fatal(err)
	}
	return func() string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			t.Fatalf("no notification on %s: %v", channel, err)
		}
		return n.Payload
	}
}

// TestPublish creates the layout on first use, moves the pointer, stores a
// fingerprint once however often it is published, notifies in the same
// transaction, and lets a role granted read access load the active one.
func TestPublish(t *testing.T) {
	ctx := t.Context()
	db := connect(t, superURI)
	next := listen(t, "svc_publish_test")
	first := dump(t, db)
	opts := snapstore.Options{Schema: "fleet_snaps", Channel: "svc_publish_test", GrantTo: []string{"fleet"}}
	t.Cleanup(func() { db.Exec(context.Background(), "drop schema fleet_snaps cascade") })

	res, err := snapstore.Publish(ctx, db, first, opts)
	if err != nil {
		t.Fatal(err)
	}
	wantCreated := `schema "fleet_snaps","fleet_snaps"."snapshots","fleet_snaps"."active"`
	if got := strings.Join(res.Created, ","); got != wantCreated || !res.Stored || res.Previous != "" {
		t.Errorf("first publish: created %s, stored %v, previous %q", got, res.Stored, res.Previous)
	}
	if p := next(); p != "reload schema" {
		t.Errorf("payload %q", p)
	}
	// The notification follows the commit: the fleet role reads the data.
	fleet := connect(t, fleetURI)
	loaded, err := snapstore.Load(ctx, fleet, "fleet_snaps")
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Header.Fingerprint != first.Header.Fingerprint || len(loaded.Content.Relations) != 1 {
		t.Errorf("loaded %.12s with %d relations", loaded.Header.Fingerprint, len(loaded.Content.Relations))
	}

	// Publishing the same schema again stores nothing and still notifies.
	res, err = snapstore.Publish(ctx, db, dump(t, db), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stored || len(res.Created) > 0 || res.Previous != first.Header.Fingerprint {
		t.Errorf("re-publish: stored %v, created %v, previous %.12s", res.Stored, res.Created, res.Previous)
	}
	next()

	if _, err := db.Exec(ctx, "alter table api.books add column isbn text"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec(context.Background(), "alter table api.books drop column if exists isbn") })
	second := dump(t, db)
	if res, err = snapstore.Publish(ctx, db, second, opts); err != nil {
		t.Fatal(err)
	}
	if !res.Stored || res.Previous != first.Header.Fingerprint || res.Fingerprint != second.Header.Fingerprint {
		t.Errorf("second snapshot: %+v", res)
	}
	next()
	// Publishing the first one again rolls back: the pointer moves back,
	// the table keeps both.
	if res, err = snapstore.Publish(ctx, db, first, opts); err != nil || res.Stored {
		t.Fatalf("roll back: %+v, %v", res, err)
	}
	next()
	var stored int
	var active string
	db.QueryRow(ctx, "select count(*), (select fingerprint from fleet_snaps.active) from fleet_snaps.snapshots").Scan(&stored, &active)
	if stored != 2 || active != first.Header.Fingerprint {
		t.Errorf("%d snapshots stored, active %.12s; want 2 and %.12s", stored, active, first.Header.Fingerprint)
	}
}

// TestPublishCheck shows Check the active snapshot and aborts the whole
// publication, notification included, when it refuses.
func TestPublishCheck(t *testing.T) {
	ctx := t.Context()
	db := connect(t, superURI)
	snap := dump(t, db)
	t.Cleanup(func() { db.Exec(context.Background(), "drop schema check_snaps cascade") })
	var seen []*snapshot.Snapshot
	opts := snapstore.Options{Schema: "check_snaps", Check: func(a *snapshot.Snapshot) error {
		seen = append(seen, a)
		return nil
	}}
	if _, err := snapstore.Publish(ctx, db, snap, opts); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0] != nil {
		t.Fatalf("first publish: Check saw %v, want nil", seen)
	}
	next := listen(t, "svc_check_test")
	refused := errors.New("refused")
	opts.Channel = "svc_check_test"
	opts.Check = func(a *snapshot.Snapshot) error {
		if a == nil || a.Header.Fingerprint != snap.Header.Fingerprint {
			t.Errorf("Check saw %v", a)
		}
		return refused
	}
	if _, err := db.Exec(ctx, "create table api.refused (id int)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec(context.Background(), "drop table api.refused") })
	if _, err := snapstore.Publish(ctx, db, dump(t, db), opts); !errors.Is(err, refused) {
		t.Fatalf("got %v, want the Check's error", err)
	}
	var stored int
	db.QueryRow(ctx, "select count(*) from check_snaps.snapshots").Scan(&stored)
	if stored != 1 {
		t.Errorf("%d snapshots stored after a refused publication, want 1", stored)
	}
	// The next notification is the one sent now, not one from the refused publication.
	db.Exec(ctx, "notify svc_check_test, 'marker'")
	if p := next(); p != "marker" {
		t.Errorf("first notification %q, want the marker", p)
	}
}

// TestLoadErrors names what to run when there is nothing to read, and what
// to grant when the role may not read it.
func TestLoadErrors(t *testing.T) {
	ctx := t.Context()
	db := connect(t, superURI)
	fleet := connect(t, fleetURI)
	t.Cleanup(func() { db.Exec(context.Background(), "drop schema if exists empty_snaps, private_snaps cascade") })
	load := func(schema string) error {
		t.Helper()
		_, err := snapstore.Load(ctx, fleet, schema)
		if err == nil {
			t.Fatalf("loaded a snapshot from %s", schema)
		}
		return err
	}
	for _, tc := range []struct {
		name, setup, schema, want string
	}{
		{"no schema", "", "svc_snapshots", `no snapshot published: relation "svc_snapshots.active" does not exist; run svc-introspect publish to create the snapshot tables in schema svc_snapshots`},
		{"no tables", "create schema empty_snaps; grant usage on schema empty_snaps to fleet", "empty_snaps",
			`no snapshot published: relation "empty_snaps.active" does not exist; run svc-introspect publish --schema empty_snaps to create the snapshot tables in schema empty_snaps`},
		{"no active row", "delete from empty_snaps.active", "empty_snaps",
			`no snapshot published: "empty_snaps"."active" has no active row; run svc-introspect publish --schema empty_snaps`},
		{"not granted", "", "private_snaps",
			`permission denied for schema private_snaps: the role fleet may not read the published snapshots; grant it with: GRANT USAGE ON SCHEMA "private_snaps" TO "fleet"; GRANT SELECT ON "private_snaps"."snapshots", "private_snaps"."active" TO "fleet";`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "no active row" {
				if _, err := snapstore.Publish(ctx, db, dump(t, db), snapstore.Options{Schema: "empty_snaps", GrantTo: []string{"fleet"}}); err != nil {
					t.Fatal(err)
				}
			}
			if tc.name == "not granted" {
				if _, err := snapstore.Publish(ctx, db, dump(t, db), snapstore.Options{Schema: "private_snaps"}); err != nil {
					t.Fatal(err)
				}
			}
			if tc.setup != "" {
				if _, err := db.Exec(ctx, tc.setup); err != nil {
					t.Fatal(err)
				}
			}
			err := load(tc.schema)
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
			if notPublished := !strings.HasPrefix(tc.name, "not granted"); errors.Is(err, snapstore.ErrNotPublished) != notPublished {
				t.Errorf("errors.Is(err, ErrNotPublished) = %v", !notPublished)
			}
		})
	}
}
