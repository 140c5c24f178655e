package request

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
)

// FuzzParse feeds arbitrary query strings and Range headers to Parse: it
// must never panic, and every error must be a 4xx *apierr.Error.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"select=a,b:c::text&id=eq.1&order=a.desc.nullslast&limit=1&offset=2",
		`t=in.("a,b",c)&n=like(any).{a*,b}&d=fts(english).x`,
		`select="a\"b"&x=not.is.null`,
		"select=a::double precision,*",
		"order=a,b.asc&x=eq.",
		"select=c,n:count(),a::int.sum()::text,j->>k::int.avg(),r(x.max()),...s(count())",
	} {
		f.Add(seed, "0-9")
	}
	f.Fuzz(func(t *testing.T, rawQuery, rangeHeader string) {
		r := httptest.NewRequest("GET", "/t", nil)
		r.URL.RawQuery = rawQuery
		r.Header.Set("Range", rangeHeader)
		_, err := Parse(r, KindRelation, "t")
		if err == nil {
			return
		}
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status < 400 || e.Status >= 500 {
			t.Fatalf("Parse(%q) gave %v, want a 4xx apierr.Error", rawQuery, err)
		}
	})
}

// FuzzPayload feeds arbitrary bodies of each content type to ParsePayload:
// it must never panic, every error must be a 4xx *apierr.Error, and what it
// accepts must be a JSON array holding as many rows as it reports.
func FuzzPayload(f *testing.F) {
	f.Add("application/json", `[{"a":1},{"a":null}]`)
	f.Add("application/json", `{"a":"x","b":[1,2]}`)
	f.Add("text/csv", "a,b\n1,NULL\n\"x,\"\"y\",\n")
	f.Add("application/x-www-form-urlencoded", "a=1&b=%20x")
	f.Fuzz(func(t *testing.T, contentType, body string) {
		p, err := ParsePayload(contentType, []byte(body), nil)
		if err != nil {
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status < 400 || e.Status >= 500 {
				t.Fatalf("ParsePayload(%q, %q) gave %v, want a 4xx apierr.Error", contentType, body, err)
			}
			return
		}
		var rows []map[string]any
		if err := json.Unmarshal(p.JSON, &rows); err != nil || len(rows) != p.Rows {
			t.Fatalf("ParsePayload(%q, %q) = %s (%d rows): not an array of %d objects: %v", contentType, body, p.JSON, p.Rows, p.Rows, err)
		}
	})
}
