package apierr

import (
	"errors"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestNamingOf checks the naming table's lookups and completeness.
func TestNamingOf(t *testing.T) {
	if NamingOf("postgrest") != PostgRESTNaming || NamingOf("svc") != SVCNaming || NamingOf("") != SVCNaming {
		t.Errorf("NamingOf(postgrest, svc, \"\") = %+v, %+v, %+v", NamingOf("postgrest"), NamingOf("svc"), NamingOf(""))
	}
	for mode, n := range Namings {
		if len(n.RaiseState) > 5 || n.CodePrefix == "" || n.Vendor == "" || n.Channel == "" || n.SettingPrefix == "" {
			t.Errorf("naming %s is incomplete or has a RaiseState longer than a SQLSTATE: %+v", mode, n)
		}
		if n.Mode() != mode {
			t.Errorf("Namings[%s].Mode() = %q", mode, n.Mode())
		}
	}
}

// TestCodeIn checks that an error keeps its identity and takes the prefix
// of the naming it is written under, while a SQLSTATE or a code a
// function raised is written as it came, under either naming.
func TestCodeIn(t *testing.T) {
	raisedSVC := FromPG(SVCNaming, &pgconn.PgError{Code: "SVC00",
		Message: `{"code":"SVC123","message":"m"}`, Detail: `{"status":418,"headers":{}}`}, false)
	for _, c := range []struct {
		e         *Error
		svc, pgrs string
	}{
		{ParseError("m", ""), "SVC100", "PGRST100"},
		{Internal(errors.New("x")), "SVCX00", "PGRSTX00"},
		{UndefinedTable("api.x", ""), "42P01", "42P01"},
		{FromPG(PostgRESTNaming, &pgconn.PgError{Code: "SVC01", Message: "m"}, false), "SVC01", "SVC01"},
		{raisedSVC, "SVC123", "SVC123"},
	} {
		if got := c.e.CodeIn(SVCNaming); got != c.svc {
			t.Errorf("%s under svc = %s, want %s", c.e.Code, got, c.svc)
		}
		if got := c.e.CodeIn(PostgRESTNaming); got != c.pgrs {
			t.Errorf("%s under postgrest = %s, want %s", c.e.Code, got, c.pgrs)
		}
	}
	w := httptest.NewRecorder()
	SingularityError(2).Write(w, PostgRESTNaming, Verbose, slog.New(slog.DiscardHandler))
	if got := w.Header().Get("Proxy-Status"); got != "PostgREST; error=PGRST116" {
		t.Errorf("Proxy-Status under postgrest = %q", got)
	}
	if got := w.Body.String(); got != `{"code":"PGRST116","details":"The result contains 2 rows","hint":null,"message":"JSON object requested, multiple (or no) rows returned"}` {
		t.Errorf("body under postgrest = %s", got)
	}
}
