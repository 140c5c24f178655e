package request

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"mime"
	"net/http/httptest"
	"slices"
	"strings"
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
		_, err := Parse(apierr.SVCNaming, r, KindRelation, "t")
		if err == nil {
			return
		}
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status < 400 || e.Status >= 500 {
			t.Fatalf("Parse(apierr.SVCNaming, %q) gave %v, want a 4xx apierr.Error", rawQuery, err)
		}
	})
}

// FuzzPayload feeds arbitrary bodies of each content type to ParsePayload:
// it must never panic, every error must be a 4xx *apierr.Error, and what it
// accepts must be rows in the form it reports, as many as it counts. JSON
// bodies are held to encoding/json's reading of them, keys and errors alike.
func FuzzPayload(f *testing.F) {
	f.Add("application/json", `[{"a":1},{"a":null}]`)
	f.Add("application/json", `{"a":"x","b":[1,2]}`)
	f.Add("application/json", `[{"a":1,"a":2,"\u0062":{"}":"]"}},{"b":3,"a":"\"}"}]`)
	f.Add("application/json", `[null,{}]`)
	f.Add("text/csv", "a,b\n1,NULL\n\"x,\"\"y\",\n")
	f.Add("application/x-www-form-urlencoded", "a=1&b=%20x")
	f.Fuzz(func(t *testing.T, contentType, body string) {
		for _, columns := range [][]string{nil, {"a"}} {
			p, err := ParsePayload(contentType, []byte(body), columns)
			if mt, _, _ := mime.ParseMediaType(contentType); contentType == "" || mt == "application/json" {
				checkJSONPayload(t, body, columns == nil, p, err)
			}
			if err != nil {
				var e *apierr.Error
				if !errors.As(err, &e) || e.Status < 400 || e.Status >= 500 {
					t.Fatalf("ParsePayload(%q, %q) gave %v, want a 4xx apierr.Error", contentType, body, err)
				}
				return
			}
			checkPayloadForm(t, p)
		}
	})
}

// checkPayloadForm checks that p's JSON holds p.Rows rows in the form p
// says, and that p.First is the first of them.
func checkPayloadForm(t *testing.T, p *Payload) {
	t.Helper()
	var rows []json.RawMessage
	switch {
	case !p.Array:
		rows = []json.RawMessage{p.JSON}
	case json.Unmarshal(p.JSON, &rows) != nil:
		t.Fatalf("%s: not an array", p.JSON)
	}
	if len(rows) != p.Rows {
		t.Fatalf("%s: %d rows, reported %d", p.JSON, len(rows), p.Rows)
	}
	for _, row := range rows {
		if p.Positional {
			var values []*string
			if err := json.Unmarshal(row, &values); err != nil || len(values) != len(p.Header) {
				t.Fatalf("%s: row %s is not %d strings or nulls", p.JSON, row, len(p.Header))
			}
			continue
		}
		var object map[string]json.RawMessage
		if err := json.Unmarshal(row, &object); err != nil {
			t.Fatalf("%s: row %s is not an object: %v", p.JSON, row, err)
		}
	}
	if p.Rows > 0 && !p.Positional && !bytes.Equal(bytes.TrimSpace(rows[0]), p.First) {
		t.Fatalf("%s: first row %s", p.JSON, p.First)
	}
}

// checkJSONPayload holds jsonPayload to what SVC computed with encoding/json
// before it walked the bytes itself: the same keys, the same rows and the
// same refusals.
func checkJSONPayload(t *testing.T, body string, uniform bool, p *Payload, err error) {
	t.Helper()
	var want struct {
		keys []string
		rows int
		err  string
	}
	trimmed := strings.TrimSpace(body)
	var any1 any
	switch {
	case trimmed == "" || json.Unmarshal([]byte(trimmed), &any1) != nil:
		want.err = "Empty or invalid json"
	case trimmed[0] == '{':
		var row map[string]json.RawMessage
		json.Unmarshal([]byte(trimmed), &row)
		want.keys, want.rows = slices.Sorted(maps.Keys(row)), 1
	case trimmed[0] == '[':
		var rows []json.RawMessage
		json.Unmarshal([]byte(trimmed), &rows)
		want.rows = len(rows)
		for i, raw := range rows {
			var row map[string]json.RawMessage
			if json.Unmarshal(raw, &row) != nil {
				want.err = "All object keys must match"
				break
			}
			keys := slices.Sorted(maps.Keys(row))
			if i == 0 {
				want.keys = keys
				if keys == nil {
					want.keys = []string{}
				}
			} else if uniform && !slices.Equal(keys, want.keys) {
				want.err = "All object keys must match"
				break
			}
		}
	default:
		want.err = "Empty or invalid json"
	}
	if want.err != "" || err != nil {
		if e := apierr.From(err); err == nil || e.Message != want.err {
			t.Fatalf("%q: error %v, want %q", body, err, want.err)
		}
		return
	}
	if p.Rows != want.rows || (uniform && !slices.Equal(p.Keys, want.keys)) {
		t.Fatalf("%q: keys %v rows %d, want %v %d", body, p.Keys, p.Rows, want.keys, want.rows)
	}
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
				req, err := Parse(apierr.SVCNaming, r, kind, "t")
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

// FuzzValidJSON holds validJSON to json.Valid on any text, and the keys
// it finds of an object to those the walk of a checked object finds.
func FuzzValidJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, ` { } `, `{"a":1,"b":[1,2,{"c":null}],"a":true}`, `{"k\u00e9y":"v\"x","k\u00E9y":0}`,
		`[1,]`, `{"a":1,}`, `{,}`, `[,1]`, `{"a" 1}`, `{"a":}`, `{1:2}`, `01`, `-0.5e+10`, `-`, `1.`, `1e`, `.5`,
		`"\ud800"`, `"\x"`, "\"a\x01\"", `"\u12"`, `tru`, `nulls`, `true false`, "{\"\xff\":1}", `[[[]]]`, `[{]}`,
		`{"a":{"b":{"c":[1,{"d":"}"}]}}}`, `"`, ``, ` `, "\t[\r\n]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var room [16]keySpan
		keys := keySpans{w: &jsonWalk{src: src}, spans: room[:0]}
		got := validJSON(src, func(start, end int, escaped bool) { keys = keys.add(start, end, escaped) })
		if want := json.Valid(src); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid %v", src, got, want)
		}
		if !got {
			return // the keys of an invalid text are not read
		}
		at := bytes.IndexFunc(src, func(r rune) bool { return !strings.ContainsRune(" \t\n\r", r) })
		if src[at] != '{' {
			if len(keys.spans) > 0 {
				t.Fatalf("validJSON(%q) gave keys of no object", src)
			}
			return
		}
		if got, want := keys.sorted(), (&jsonWalk{src: src, pos: at}).firstKeys(); !slices.Equal(got, want) {
			t.Fatalf("keys of %q: %q, the walk finds %q", src, got, want)
		}
	})
}

// TestValidJSONDepth: arrays and objects nest as deeply as json.Valid
// allows, and no deeper.
func TestValidJSONDepth(t *testing.T) {
	for _, depth := range []int{maxJSONDepth - 1, maxJSONDepth, maxJSONDepth + 1} {
		for _, src := range []string{
			strings.Repeat("[", depth) + strings.Repeat("]", depth),
			strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth),
		} {
			if got, want := validJSON([]byte(src), nil), json.Valid([]byte(src)); got != want {
				t.Errorf("%d levels of %.5s: validJSON %v, json.Valid %v", depth, src, got, want)
			}
		}
	}
}
