package request

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
)

// TestParseRefusesWhatSQLCannotSay: names and casts PostgreSQL's grammar
// would reject (42601) once written into a statement are refused by the
// parser with 400 SVC100, while their legitimate neighbours still parse.
func TestParseRefusesWhatSQLCannotSay(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, query string
		refused     bool
	}{
		{"empty quoted on_conflict", `on_conflict=""`, true},
		{"empty quoted among on_conflict", `on_conflict=a,""`, true},
		{"empty quoted columns", `columns=""`, true},
		{"blank unquoted name", `select=%20%20,a`, true},
		{"empty quoted column", `select=""`, true},
		{"empty quoted alias", `select="":a`, true},
		{"alias of a NUL", `select="%00":a`, true},
		{"alias holding a NUL", `select="a%00b":a`, true},
		{"column holding a NUL", `select="a%00"`, true},
		{"empty quoted embed hint", `select=a,b!""(c)`, true},
		{"empty quoted order", `order=""`, true},
		{"empty quoted filter column", `""=eq.1`, true},
		{"JSON path ending in an empty key", `select=meta->""`, true},
		{"JSON path ending in an empty text key", `select=meta->>""`, true},
		{"JSON key holding a NUL", `select=meta->"%00"`, true},
		{"JSON key holding a NUL, in a filter", `meta->>"a%00"=eq.1`, true},
		{"empty key with an alias", `select=k:meta->""`, false},
		{"empty key inside a path", `select=meta->""->a`, false},
		{"empty key in a filter", `meta->>""=eq.1`, false},
		{"empty key under an aggregate", `select=meta->"".sum()`, false},
		{"quoted names", `select="a b":"c,d"&on_conflict="e f"`, false},
		{"cast to NULL", `select=id::NULL`, true},
		{"cast to null, any case", `select=id::nUlL`, true},
		{"cast to a number", `select=id::1e309`, true},
		{"cast to a digit", `select=id::1`, true},
		{"cast to a schema-qualified number", `select=id::public.1`, true},
		{"aggregate cast to null", `select=id.sum()::null`, true},
		{"input cast to a reserved word", `select=id::select.sum()`, true},
		{"cast to an array of a reserved word", `select=id::table[]`, true},
		{"cast to a column-name keyword", `select=id::between`, true},
		{"cast to a reserved schema", `select=id::from.text`, true},
		{"cast to a type word as schema", `select=id::int.x`, true},
		{"cast to int", `select=id::int`, false},
		{"cast to INTEGER[]", `select=id::INTEGER[]`, false},
		{"cast to double precision", `select=id::double precision`, false},
		{"cast to a qualified type", `select=id::pg_catalog.int4`, false},
		{"cast to a keyword after the schema", `select=id::public.null`, false},
		{"cast to an underscore word", `select=id::_int4`, false},
		{"cast to an unreserved keyword", `select=id::json`, false},
		{"aggregate cast", `select=id.sum()::numeric`, false},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/x", nil)
		r.URL.RawQuery = strings.ReplaceAll(c.query, " ", "%20")
		_, err := Parse(apierr.SVCNaming, r, KindRelation, "x")
		switch {
		case !c.refused && err != nil:
			t.Errorf("%s (%s): %v, want it parsed", c.name, c.query, err)
		case c.refused && err == nil:
			t.Errorf("%s (%s): parsed, want 400 SVC100", c.name, c.query)
		case c.refused:
			if e := apierr.From(err); e.Status != 400 || e.Code != apierr.SVCNaming.CodePrefix+"100" {
				t.Errorf("%s (%s): %v, want 400 SVC100", c.name, c.query, err)
			}
		}
	}
}
