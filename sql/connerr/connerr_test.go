package connerr

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/svc-dev/svc/sql/pgtest"
)

var dbURI string

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, func(uri string) error {
		dbURI = uri
		return nil
	}))
}

// with returns dbURI with the user, or the port, replaced.
func with(t *testing.T, user string, port int) string {
	t.Helper()
	u, err := url.Parse(dbURI)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		u.User = url.User(user)
	}
	if port != 0 {
		u.Host = net.JoinHostPort(u.Hostname(), strconv.Itoa(port))
	}
	q := u.Query()
	q.Set("sslmode", "prefer") // the default, which tries TLS first
	u.RawQuery = q.Encode()
	return u.String()
}

// TestExplain connects to a real server in the ways users get wrong and
// checks the message names the cause, without the TLS fallback's noise.
func TestExplain(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := ln.Addr().(*net.TCPAddr).Port
	ln.Close()

	cases := []struct {
		name, uri string
		want      string
	}{
		{"unknown role", with(t, "no_such_role", 0), `as role "no_such_role"`},
		{"nothing listening", with(t, "", closedPort), "connection refused"},
		{"unknown host", "postgres://x@nonexistent.invalid/db", "nonexistent.invalid"},
	}
	for _, c := range cases {
		_, err := pgx.Connect(context.Background(), c.uri)
		if err == nil {
			t.Fatalf("%s: connected", c.name)
		}
		got := Explain(err)
		msg := got.Error()
		if !strings.Contains(msg, c.want) || strings.Contains(msg, "TLS") || strings.Count(msg, "\n") > 0 {
			t.Errorf("%s: %q\n(pgx said %q)", c.name, msg, err)
		}
		var ce *Error
		if !errors.As(got, &ce) || !errors.As(got, new(*pgconn.ConnectError)) {
			t.Errorf("%s: %T does not unwrap to pgx's error", c.name, got)
		}
	}
	_, err = pgx.Connect(context.Background(), with(t, "no_such_role", 0))
	if msg := Explain(err).Error(); !strings.HasSuffix(msg, `role "no_such_role" does not exist (SQLSTATE 28000)`) {
		t.Errorf("unknown role: %q", msg)
	}
	var pgErr *pgconn.PgError
	if !errors.As(Explain(err), &pgErr) || pgErr.Code != "28000" {
		t.Errorf("the PostgreSQL error is not reachable: %v", pgErr)
	}
	_, err = pgx.Connect(context.Background(), "postgres://nobody@127.0.0.1:1")
	if msg := Explain(err).Error(); !strings.HasPrefix(msg, `cannot connect to database "nobody" as role "nobody" at 127.0.0.1:1: `) {
		t.Errorf("no database named: %q", msg)
	}
	plain := errors.New("not a connection error")
	if Explain(plain) != plain || Explain(nil) != nil {
		t.Error("Explain changed an error that is not pgx's connection error")
	}
}
