package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Requests run in the pipeline's implicit transaction when nothing calls
// for BEGIN. These tests pin what BEGIN used to guarantee: read committed
// whatever the session's default, and read-only reads; and how the
// sessions requests run in are named.

// TestIsolationWhateverTheSessionDefault connects with a session default
// of serializable: requests must still run at read committed, the level
// BEGIN names when the default cannot be used.
func TestIsolationWhateverTheSessionDefault(t *testing.T) {
	for _, tc := range []struct{ name, uri string }{
		{"default", fixture.authURI},
		{"serializable session", serializableURI()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := serverWith(t, map[string]string{"db-uri": tc.uri})
			for _, method := range []string{http.MethodGet, http.MethodPost} {
				got := requestContext(t, base, method)
				if got["isolation"] != "read committed" {
					t.Errorf("%s: isolation %q, want read committed", method, got["isolation"])
				}
			}
		})
	}
}

// TestReadsAreReadOnly: a GET runs read only in either kind of
// transaction, so a function that writes fails when called by GET.
func TestReadsAreReadOnly(t *testing.T) {
	for _, uri := range []string{fixture.authURI, serializableURI()} {
		base := serverWith(t, map[string]string{"db-uri": uri})
		got := requestContext(t, base, http.MethodGet)
		if got["read_only"] != "on" {
			t.Errorf("%s: GET ran with transaction_read_only %q", uri, got["read_only"])
		}
		if got := requestContext(t, base, http.MethodPost); got["read_only"] != "off" {
			t.Errorf("%s: POST ran with transaction_read_only %q", uri, got["read_only"])
		}
	}
}

// TestSessionsNamed: SVC's sessions carry application_name svc, unless
// db-uri names another.
func TestSessionsNamed(t *testing.T) {
	for uri, want := range map[string]string{
		fixture.authURI:                       "svc",
		withParam("application_name=billing"): "billing",
	} {
		base := serverWith(t, map[string]string{"db-uri": uri})
		if got := requestContext(t, base, http.MethodGet)["application_name"]; got != want {
			t.Errorf("%s: application_name %q, want %q", uri, got, want)
		}
	}
}

// requestContext calls test.transaction_context and decodes its object.
func requestContext(t *testing.T, base, method string) map[string]string {
	t.Helper()
	body := ""
	if method == http.MethodPost {
		body = "{}"
	}
	req, _ := http.NewRequestWithContext(t.Context(), method, base+"/rpc/transaction_context", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s /rpc/transaction_context: status %d, %v", method, resp.StatusCode, err)
	}
	return out
}

// serializableURI is the fixture's authenticator URI with the session's
// default isolation level set to serializable at connection start.
func serializableURI() string { return withParam("default_transaction_isolation=serializable") }

// withParam is the fixture's authenticator URI with a connection
// parameter added.
func withParam(param string) string {
	sep := "?"
	if strings.Contains(fixture.authURI, "?") {
		sep = "&"
	}
	return fixture.authURI + sep + param
}

// TestSerializationFailureAtCommit: a serializable request whose commit
// PostgreSQL refuses (write skew with a transaction that committed first,
// found only at commit) answers with that error, 40001 and its status,
// never 2xx, and its write is gone. A deferred trigger that naps holds the
// request in its commit while the other transaction commits.
func TestSerializationFailureAtCommit(t *testing.T) {
	db := superConn(t)
	ctx := t.Context()
	if _, err := db.Exec(ctx, `
		create role svc_serial nologin;
		alter role svc_serial set default_transaction_isolation = 'serializable';
		grant svc_serial to authenticator;
		grant usage on schema test to svc_serial;
		create table test.serial_skew (id int primary key, k text, note text);
		insert into test.serial_skew values (1, 'a', null), (2, 'b', null);
		create function test.serial_skew_nap() returns trigger language plpgsql as $$
		begin
			if new.note = 'nap' then perform pg_sleep(2); end if;
			return null;
		end $$;
		create constraint trigger serial_skew_nap after update on test.serial_skew
			deferrable initially deferred for each row execute function test.serial_skew_nap();
		grant select, update on test.serial_skew to svc_serial`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		superConn(t).Exec(context.Background(), `drop table test.serial_skew; drop function test.serial_skew_nap();
			drop owned by svc_serial; drop role svc_serial`)
	})
	base := serverWith(t, map[string]string{"db-anon-role": "svc_serial"})

	// The other transaction reads what the request writes and writes what
	// it reads (sequential scans: the whole table is read).
	other, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Rollback(context.Background())
	if _, err := other.Exec(ctx, "set transaction isolation level serializable"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec(ctx, "select count(*) from test.serial_skew where k = 'b'; update test.serial_skew set note = 'other' where k = 'b'"); err != nil {
		t.Fatal(err)
	}

	answered := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPatch, base+"/serial_skew?k=eq.a", strings.NewReader(`{"note":"nap"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- err.Error()
			return
		}
		defer resp.Body.Close()
		var body struct {
			Code string `json:"code"`
		}
		json.NewDecoder(resp.Body).Decode(&body)
		answered <- fmt.Sprintf("%d %s", resp.StatusCode, body.Code)
	}()
	watch := superConn(t)
	for deadline := time.Now().Add(10 * time.Second); ; {
		var napping bool
		// Napping in a COMMIT: the request's trigger, and no other test's
		// pg_sleep.
		if err := watch.QueryRow(ctx, "select exists (select from pg_stat_activity where wait_event = 'PgSleep' and "+
			"usename = 'authenticator' and query = 'commit')").Scan(&napping); err != nil {
			t.Fatal(err)
		}
		if napping {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the request never reached its commit's trigger")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := other.Commit(ctx); err != nil {
		t.Fatalf("the other transaction, committing first: %v", err)
	}
	if got := <-answered; got != "500 40001" {
		t.Errorf("the request whose commit failed answered %s, want 500 40001", got)
	}
	var note *string
	if err := db.QueryRow(ctx, "select note from test.serial_skew where id = 1").Scan(&note); err != nil || note != nil {
		t.Errorf("the request's write: note %v (%v), want none", note, err)
	}
}
