package main

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/sql/pgtest"
)

// TestDatabaseBackIsLogged: a database that goes away under a running
// server and comes back is said to be reached again, with the line
// start-up has, once.
func TestDatabaseBackIsLogged(t *testing.T) {
	cluster, err := pgtest.Start(t.Context(), pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	conn, err := pgx.Connect(t.Context(), cluster.URI)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(t.Context(), `create role back_anon nologin;
		create role back_auth login noinherit;
		grant back_anon to back_auth;
		create schema api;
		grant usage on schema api to back_anon;
		create table api.items (id int primary key);
		grant select on api.items to back_anon`)
	conn.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(cluster.URI)
	u.User = url.User("back_auth")
	var logs logBuffer
	addr, _ := startLogging(t, map[string]string{"db-uri": u.String(), "db-schemas": "api", "db-anon-role": "back_anon",
		"db-pool-acquisition-timeout": "2"}, &logs)
	get := func() int {
		resp, err := http.Get("http://" + addr + "/items")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	connected := `level=NOTICE msg="connected to the database" server="PostgreSQL 1\d[^"]*" database=\S+ role=back_auth address=\S+`
	logs.waitFor(t, connected)

	cluster.Halt()
	for deadline := time.Now().Add(15 * time.Second); get() != http.StatusServiceUnavailable; {
		if time.Now().After(deadline) {
			t.Fatal("requests still served with the database away")
		}
		time.Sleep(50 * time.Millisecond)
	}
	get() // a request finds no connection to be had
	if err := cluster.Resume(t.Context()); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(15 * time.Second); get() != http.StatusOK; {
		if time.Now().After(deadline) {
			t.Fatal("requests not served once the database was back")
		}
		time.Sleep(50 * time.Millisecond)
	}
	logs.waitFor(t, `(?s)`+connected+`.*`+connected)
	if n := strings.Count(logs.String(), `msg="connected to the database"`); n != 2 {
		t.Errorf("%d lines saying the database was reached, want 2 (start, back):\n%s", n, logs.String())
	}
}
