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
		"x=eq.a;b&y=like.50%;z=eq.%ff+1",
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

// FuzzHeaders feeds arbitrary Prefer, Accept and profile headers to Parse
// for a read and a function call: it must never panic, errors must be 4xx
// *apierr.Error values, and an accepted request must name a media type.
func FuzzHeaders(f *testing.F) {
	f.Add("return=representation, count=exact", "application/json", "")
	f.Add("handling=strict, max-affected=5, timezone=America/Los_Angeles", "text/csv;q=0.5, */*", "api")
	f.Add("tx=rollback,missing=default,resolution=merge-duplicates", `application/vnd.svc.plan+json; for="text/csv"; options=analyze|verbose`, "other")
	f.Add("params=single-object", "application/vnd.svc.array+json;nulls=stripped, application/geo+json;q=0", "")
	f.Fuzz(func(t *testing.T, prefer, accept, profile string) {
		for _, method := range []string{"GET", "POST"} {
			r := httptest.NewRequest(method, "/t", nil)
			r.Header.Set("Prefer", prefer)
			r.Header.Set("Accept", accept)
			r.Header.Set("Accept-Profile", profile)
			r.Header.Set("Content-Profile", profile)
			for _, kind := range []Kind{KindRelation, KindFunction, KindRoot} {
				req, err := Parse(r, kind, "t")
				if err != nil {
					var e *apierr.Error
					if !errors.As(err, &e) || e.Status < 400 || e.Status >= 500 {
						t.Fatalf("Parse with Prefer %q, Accept %q gave %v, want a 4xx apierr.Error", prefer, accept, err)
					}
					continue
				}
				if req.Media.ContentType() == "" {
					t.Fatalf("Accept %q: no content type", accept)
				}
			}
		}
	})
}

// FuzzCallForm feeds arbitrary form bodies to ParseCallForm, the argument
// reader of form-encoded function calls.
func FuzzCallForm(f *testing.F) {
	f.Add("a=1&b=2")
	f.Add("v=1&v=2&v=%20x")
	f.Add("=&&a")
	f.Add("v=1;v=50%&w=a+b%zz")
	f.Fuzz(func(t *testing.T, body string) {
		p, err := ParseCallForm([]byte(body))
		if err != nil {
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status < 400 || e.Status >= 500 {
				t.Fatalf("ParseCallForm(%q) gave %v, want a 4xx apierr.Error", body, err)
			}
			return
		}
		if !json.Valid(p.JSON) {
			t.Fatalf("ParseCallForm(%q) = %s, not JSON", body, p.JSON)
		}
	})
}
