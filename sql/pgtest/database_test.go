package pgtest

import (
	"context"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A package's TestMain asks for its database by name on a cluster an
// earlier run may have used: what that run left there must be gone, and
// the database's URI must reach it as the cluster's user or another.
func TestFreshDatabase(t *testing.T) {
	ctx := context.Background()
	c, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	uri, err := FreshDatabase(ctx, c.URI, "fresh db")
	if err != nil {
		t.Fatal(err)
	}
	if err := Exec(ctx, uri, "create table left_over (id int)", "create role fresh_user login"); err != nil {
		t.Fatal(err)
	}
	again, err := FreshDatabase(ctx, c.URI, "fresh db")
	if err != nil {
		t.Fatalf("second FreshDatabase: %v", err)
	}
	conn, err := pgx.Connect(ctx, AsUser(again, "fresh_user"))
	if err != nil {
		t.Fatalf("connect as fresh_user: %v", err)
	}
	defer conn.Close(ctx)
	var db, user string
	var tables int
	if err := conn.QueryRow(ctx, "select current_database(), current_user, (select count(*) from pg_tables where tablename = 'left_over')").
		Scan(&db, &user, &tables); err != nil {
		t.Fatal(err)
	}
	if db != "fresh db" || user != "fresh_user" || tables != 0 {
		t.Errorf("got database %q, user %q, %d left_over tables; want \"fresh db\", fresh_user, 0", db, user, tables)
	}
	if u, _ := url.Parse(AsUser(uri, "x")); u.Path != "/fresh db" {
		t.Errorf("AsUser changed the database: %s", u.Path)
	}
}
