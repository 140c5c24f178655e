package apierr

import (
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestStatusForSQLState(t *testing.T) {
	t.Parallel()
	cases := []struct {
		state string
		auth  bool
		want  int
	}{
		{"08006", false, 503}, {"09000", false, 500}, {"0L000", false, 403}, {"0P000", false, 403},
		{"23503", false, 409}, {"23505", false, 409}, {"23502", false, 400}, {"25006", false, 405},
		{"25001", false, 500}, {"28000", false, 403}, {"2D000", false, 500}, {"38000", false, 500},
		{"39000", false, 500}, {"3B000", false, 500}, {"40001", false, 500}, {"53400", false, 500},
		{"53100", false, 503}, {"54000", false, 500}, {"55000", false, 500}, {"57014", false, 500},
		{"58000", false, 500}, {"F0000", false, 500}, {"HV000", false, 500}, {"P0001", false, 400},
		{"P0002", false, 500}, {"XX000", false, 500}, {"42883", false, 404}, {"42P01", false, 404},
		{"42P17", false, 500}, {"42501", false, 401}, {"42501", true, 403}, {"22P02", false, 400},
		{"42703", false, 400},
		// pg-safeupdate refuses a full-table UPDATE or DELETE with 21000:
		// the client's request, so 400 ("any other"), as in PostgREST 12.1+.
		{"21000", false, 400},
	}
	for _, c := range cases {
		if got := StatusForSQLState(c.state, c.auth); got != c.want {
			t.Errorf("StatusForSQLState(%q, %v) = %d, want %d", c.state, c.auth, got, c.want)
		}
	}
}

func TestErrorJSON(t *testing.T) {
	t.Parallel()
	got := string(ParseError("failed to parse select", "unexpected ')'").JSON(SVCNaming, Verbose))
	want := `{"code":"SVC100","details":"unexpected ')'","hint":null,"message":"failed to parse select"}`
	if got != want {
		t.Errorf("JSON() = %s, want %s", got, want)
	}
}

func TestFromPGRaised(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		pg      pgconn.PgError
		status  int
		code    string
		message string
		headers map[string]string
	}{
		{"plain", pgconn.PgError{Code: "P0001", Message: "nope", Detail: "d", Hint: "h"}, 400, "P0001", "nope", nil},
		{"PT status", pgconn.PgError{Code: "PT402", Message: "pay up"}, 402, "PT402", "pay up", nil},
		{"PT not a status", pgconn.PgError{Code: "PTabc", Message: "x"}, 400, "PTabc", "x", nil},
		{"custom", pgconn.PgError{Code: "SVC00", Message: `{"code":"123","message":"Payment Required","details":"card","hint":"upgrade"}`,
			Detail: `{"status":402,"headers":{"X-Powered-By":"Nerd Rage"}}`}, 402, "123", "Payment Required",
			map[string]string{"X-Powered-By": "Nerd Rage"}},
		{"custom bad message", pgconn.PgError{Code: "SVC00", Message: `not json`, Detail: `{"status":402}`}, 500, "SVC121",
			`Could not parse JSON in the "RAISE SQLSTATE 'SVC'" error`, nil},
		{"privilege, anonymous", pgconn.PgError{Code: "42501", Message: "permission denied"}, 401, "42501", "permission denied",
			map[string]string{"WWW-Authenticate": "Bearer"}},
		{"unknown role", pgconn.PgError{Code: "22023", Message: `role "ghost" does not exist`}, 401, "22023", `role "ghost" does not exist`,
			map[string]string{"WWW-Authenticate": "Bearer"}},
		{"server shut down", pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, 503, "57P01",
			"terminating connection due to administrator command", map[string]string{"Retry-After": "1"}},
		{"another backend crashed", pgconn.PgError{Code: "57P02", Message: "terminating connection because of crash of another server process"}, 503, "57P02",
			"terminating connection because of crash of another server process", map[string]string{"Retry-After": "1"}},
		{"server recovering", pgconn.PgError{Code: "57P03", Message: "the database system is in recovery mode"}, 503, "57P03",
			"the database system is in recovery mode", map[string]string{"Retry-After": "1"}},
		{"query cancelled", pgconn.PgError{Code: "57014", Message: "canceling statement due to statement timeout"}, 500, "57014",
			"canceling statement due to statement timeout", nil},
		{"other invalid parameter", pgconn.PgError{Code: "22023", Message: "bad value"}, 400, "22023", "bad value", nil},
		{"custom bad status", pgconn.PgError{Code: "SVC00", Message: `{"code":"1","message":"m"}`, Detail: `{"status":42,"headers":{}}`}, 500, "SVC121",
			`Could not parse JSON in the "RAISE SQLSTATE 'SVC'" error`, nil},
	}
	for _, c := range cases {
		e := FromPG(SVCNaming, &c.pg, false)
		if e.Status != c.status || e.Code != c.code || e.Message != c.message || len(e.Headers) != len(c.headers) {
			t.Errorf("%s: got %d %s %q %v, want %d %s %q %v", c.name, e.Status, e.Code, e.Message, e.Headers, c.status, c.code, c.message, c.headers)
		}
		for k, v := range c.headers {
			if e.Headers[k] != v {
				t.Errorf("%s: header %s = %q, want %q", c.name, k, e.Headers[k], v)
			}
		}
	}
}
