package request

import (
	"errors"
	"math"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
)

func TestNegotiateRelation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		accept string
		want   Media
	}{
		{"", Media{Kind: MediaJSON}},
		{"*/*", Media{Kind: MediaJSON}},
		{"application/json", Media{Kind: MediaJSON}},
		{"text/csv", Media{Kind: MediaCSV}},
		{"application/vnd.svc.object+json", Media{Vendor: "svc", Kind: MediaObject}},
		{"application/vnd.svc.array+json;nulls=stripped", Media{Vendor: "svc", Kind: MediaArray, StripNulls: true}},
		{"application/vnd.svc.array;nulls=stripped", Media{Vendor: "svc", Kind: MediaArray, StripNulls: true}},
		{"application/vnd.svc.array+json", Media{Kind: MediaJSON}},
		{"application/vnd.svc.object", Media{Vendor: "svc", Kind: MediaObject}},
		{"application/vnd.svc.object;nulls=stripped", Media{Vendor: "svc", Kind: MediaObject, StripNulls: true}},
		{"text/xml, text/csv;q=0.5, application/json;q=0.9", Media{Kind: MediaJSON}},
		{"application/json;q=0, text/csv", Media{Kind: MediaCSV}},
		// q=0 refuses a type a wildcard would have stood for: */* is
		// then the other type SVC renders for any relation.
		{"application/json;q=0, */*", Media{Kind: MediaCSV}},
		{"*/*, application/*;q=0", Media{Kind: MediaCSV}},
		{"text/*;q=0, text/html, */*", Media{Kind: MediaJSON}},
		// The most specific range decides, a refusal or not.
		{"*/*;q=0, application/json", Media{Kind: MediaJSON}},
		{"*/*, application/*;q=0, application/json;q=0.5", Media{Kind: MediaJSON}},
		{"*/*;q=0.5, application/json;Q=0", Media{Kind: MediaCSV}},
		// A range that names its type is answered as asked.
		{"application/json;q=0, application/vnd.svc.array+json", Media{Kind: MediaJSON}},
		// An element whose weight is no qvalue is left out.
		{"application/json;q=2, text/csv", Media{Kind: MediaCSV}},
		{"application/json;q=0.0001, text/csv;q=0.001", Media{Kind: MediaCSV}},
		{"application/json;q=bad, text/csv;q=0.5", Media{Kind: MediaCSV}},
		{"text/csv;q=1.000, application/json;q=0.999", Media{Kind: MediaCSV}},
		{`application/vnd.svc.plan+json; for="text/csv"; options=analyze|verbose`,
			Media{Vendor: "svc", Kind: MediaPlan, PlanJSON: true, PlanFor: MediaCSV, PlanOptions: []string{"analyze", "verbose"}}},
		{"application/vnd.svc.plan", Media{Vendor: "svc", Kind: MediaPlan}},
		{"application/geo+json", Media{Kind: MediaGeoJSON}},
	}
	for _, c := range cases {
		got, err := NegotiateRelation(apierr.SVCNaming, c.accept)
		if err != nil {
			t.Errorf("NegotiateRelation(apierr.SVCNaming, %q): %v", c.accept, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("NegotiateRelation(apierr.SVCNaming, %q) = %+v, want %+v", c.accept, got, c.want)
		}
	}
	for _, bad := range []string{"text/xml", "application/vnd.pgrst.object+json", "application/vnd.svc.plan; options=drop", "application/json;q=0",
		"application/json;q=0, text/csv;q=0, */*", "application/json;q=0, application/*", "*/*;q=0",
		"application/json;q=bad", "application/json;q=-1", "application/json;q=1.5", "*/*;q=NaN", "*/*;q=1e0", "*/*;q=.5"} {
		_, err := NegotiateRelation(apierr.SVCNaming, bad)
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status != 415 || e.Code != "SVC107" {
			t.Errorf("NegotiateRelation(apierr.SVCNaming, %q) = %v, want 415 SVC107", bad, err)
		}
	}
	// The stripped types answer with the parameter as PostgREST writes it.
	for _, c := range []struct{ accept, contentType string }{
		{"application/vnd.svc.array+json; nulls=stripped", "application/vnd.svc.array+json;nulls=stripped; charset=utf-8"},
		{"application/vnd.svc.object;nulls=stripped", "application/vnd.svc.object+json;nulls=stripped; charset=utf-8"},
		{"application/vnd.svc.array", "application/json; charset=utf-8"},
		// A plan names the options it was made with, in the order asked.
		{`application/vnd.svc.plan+json; options=analyze|wal`, `application/vnd.svc.plan+json; for="application/json"; options=analyze|wal; charset=utf-8`},
		{`application/vnd.svc.plan; for="text/csv"; options=buffers|settings|verbose`,
			`application/vnd.svc.plan+text; for="text/csv"; options=buffers|settings|verbose; charset=utf-8`},
		{`application/vnd.svc.plan+json`, `application/vnd.svc.plan+json; for="application/json"; charset=utf-8`},
	} {
		if m, _ := NegotiateRelation(apierr.SVCNaming, c.accept); m.ContentType() != c.contentType {
			t.Errorf("Content-Type for %q = %q, want %q", c.accept, m.ContentType(), c.contentType)
		}
	}
	if m, err := NegotiateRoot(apierr.SVCNaming, "*/*"); err != nil || m.Kind != MediaOpenAPI {
		t.Errorf("NegotiateRoot(apierr.SVCNaming, */*) = %+v, %v", m, err)
	}
	for accept, version := range map[string]string{
		"application/openapi+json":                    "",
		"application/openapi+json;version=3.1":        "3.1",
		"application/openapi+json; version=\"3.1.0\"": "3.1",
		"application/openapi+json;version=2.0":        "2.0",
		"application/openapi+json;version=3.0, */*":   "",
	} {
		if m, err := NegotiateRoot(apierr.SVCNaming, accept); err != nil || m.Kind != MediaOpenAPI || m.OpenAPI != version {
			t.Errorf("NegotiateRoot(apierr.SVCNaming, %s) = %+v, %v; want version %q", accept, m, err, version)
		}
	}
	for _, bad := range []string{"text/csv", "application/openapi+json;q=0, */*", "*/*;q=0.0000",
		"application/openapi+json;version=3.0"} {
		if _, err := NegotiateRoot(apierr.SVCNaming, bad); err == nil {
			t.Errorf("NegotiateRoot(apierr.SVCNaming, %s) accepted", bad)
		}
	}
}

func TestParsePrefer(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("GET", "/t", nil)
	r.Header.Add("Prefer", "return=representation, count=exact")
	r.Header.Add("Prefer", "handling=strict,max-affected=5, timezone=America/Los_Angeles, return=minimal, bogus=1, count=fast")
	got := ParsePrefer(r)
	five := int64(5)
	want := Preferences{Return: "representation", Count: "exact", Handling: "strict", MaxAffected: &five,
		Timezone: "America/Los_Angeles", Invalid: []string{"bogus=1"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParsePrefer = %+v, want %+v", got, want)
	}
	r = httptest.NewRequest("GET", "/t", nil)
	r.Header.Set("Prefer", "count=fast, tx=commit, params=single-object, missing=default, resolution=ignore-duplicates")
	got = ParsePrefer(r)
	if got.Count != "" || got.Tx != "commit" || got.Params != "single-object" || got.Missing != "default" ||
		got.Resolution != "ignore-duplicates" || !reflect.DeepEqual(got.Invalid, []string{"count=fast"}) {
		t.Errorf("ParsePrefer = %+v", got)
	}
}

func TestParseAccept(t *testing.T) {
	t.Parallel()
	cases := []struct {
		header  string
		want    []MediaRange
		refused []MediaRange
	}{
		{"", []MediaRange{{Type: "*/*", Q: 1}}, nil},
		// Ordered by q, then by position; q=0 refuses.
		{"text/html;q=0.5, Image/PNG, */*;q=0.8, text/plain;q=0",
			[]MediaRange{{Type: "image/png", Q: 1},
				{Type: "*/*", Params: map[string]string{"q": "0.8"}, Q: 0.8},
				{Type: "text/html", Params: map[string]string{"q": "0.5"}, Q: 0.5}},
			[]MediaRange{{Type: "text/plain", Params: map[string]string{"q": "0"}}}},
		// Parameters it cannot read are dropped, the rest kept; quoted
		// values may hold commas and semicolons.
		{`application/json; $$ unrecognized-chars=ignored $$; v=1`,
			[]MediaRange{{Type: "application/json", Params: map[string]string{"v": "1"}, Q: 1}}, nil},
		{`application/vnd.svc.plan; for="text/csv;x, y"; options=analyze, text/csv`,
			[]MediaRange{{Type: "application/vnd.svc.plan", Params: map[string]string{"for": "text/csv;x, y", "options": "analyze"}, Q: 1},
				{Type: "text/csv", Q: 1}}, nil},
		// An element whose weight is no qvalue is left out, the rest kept.
		{"text/csv;q=bad, application/json;q=0.5", []MediaRange{{Type: "application/json", Params: map[string]string{"q": "0.5"}, Q: 0.5}}, nil},
		{"text/csv;q=bad", nil, nil},
	}
	for _, c := range cases {
		got, refused := ParseAccept(c.header)
		if !reflect.DeepEqual(got, c.want) || !reflect.DeepEqual(refused, c.refused) {
			t.Errorf("ParseAccept(%q)\n got %+v, refused %+v\nwant %+v, refused %+v", c.header, got, refused, c.want, c.refused)
		}
	}
}

func TestParseQValue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s  string
		q  float64
		ok bool
	}{
		{"0", 0, true}, {"1", 1, true}, {"0.", 0, true}, {"1.", 1, true}, {"0.5", 0.5, true},
		{"0.001", 0.001, true}, {"0.999", 0.999, true}, {"1.000", 1, true}, {"0.000", 0, true},
		{"", 0, false}, {"0.0001", 0, false}, {"1.001", 0, false}, {"2", 0, false}, {"-1", 0, false},
		{".5", 0, false}, {"0,5", 0, false}, {"0.5 ", 0, false}, {"1e0", 0, false}, {"NaN", 0, false},
		{"01", 0, false}, {"0.a", 0, false},
	} {
		q, ok := parseQValue(c.s)
		if ok != c.ok || ok && math.Abs(q-c.q) > 1e-9 {
			t.Errorf("parseQValue(%q) = %v, %v; want %v, %v", c.s, q, ok, c.q, c.ok)
		}
	}
}

func TestBuiltinMediaPlanForHandler(t *testing.T) {
	t.Parallel()
	cases := []struct {
		accept string
		want   Media
		ok     bool
	}{
		// A media type SVC does not render is left to the schema's handlers.
		{`application/vnd.svc.plan; for="application/vnd.twkb"`,
			Media{Vendor: "svc", Kind: MediaPlan, PlanFor: MediaHandler, PlanForName: "application/vnd.twkb"}, true},
		{`application/vnd.svc.plan+json; for="Text/HTML"`,
			Media{Vendor: "svc", Kind: MediaPlan, PlanJSON: true, PlanFor: MediaHandler, PlanForName: "text/html"}, true},
		{`application/vnd.svc.plan; for="text/csv"`, Media{Vendor: "svc", Kind: MediaPlan, PlanFor: MediaCSV}, true},
		{`application/vnd.svc.plan; for="nonsense"`, Media{}, false},
		{`application/vnd.svc.plan; for="application/vnd.svc.plan"`, Media{}, false},
		{"application/vnd.twkb", Media{}, false},
	}
	for _, c := range cases {
		accepted, refused := ParseAccept(c.accept)
		req := &Request{AcceptRanges: accepted, AcceptRefused: refused}
		got, ok := req.BuiltinMedia(apierr.SVCNaming, accepted[0])
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("BuiltinMedia(%q) = %+v, %v; want %+v, %v", c.accept, got, ok, c.want, c.ok)
		}
	}
}

func TestHandlerContentType(t *testing.T) {
	t.Parallel()
	cases := []struct {
		m    Media
		want string
	}{
		{Media{Kind: MediaHandler, Name: "text/html"}, "text/html"},
		{Media{Kind: MediaHandler, Name: "text/plain"}, "text/plain; charset=utf-8"},
		{Media{Kind: MediaHandler, Name: "application/json"}, "application/json; charset=utf-8"},
		{Media{Kind: MediaHandler, Name: "application/octet-stream", Binary: true}, "application/octet-stream"},
		{Media{Vendor: "svc", Kind: MediaPlan, PlanFor: MediaHandler, PlanForName: "image/png"},
			`application/vnd.svc.plan+text; for="image/png"; charset=utf-8`},
	}
	for _, c := range cases {
		if got := c.m.ContentType(); got != c.want {
			t.Errorf("%+v: Content-Type %q, want %q", c.m, got, c.want)
		}
	}
}

func TestParseLeavesUnrenderedToPlanning(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("GET", "/t", nil)
	r.Header.Set("Accept", "application/vnd.twkb, text/csv;q=0.5")
	req, err := Parse(apierr.SVCNaming, r, KindRelation, "t")
	if err != nil {
		t.Fatal(err)
	}
	if req.Media.Kind != MediaCSV || len(req.AcceptRanges) != 2 || req.Accept != "application/vnd.twkb, text/csv;q=0.5" {
		t.Errorf("got media %+v, ranges %+v, accept %q", req.Media, req.AcceptRanges, req.Accept)
	}
	r.Header.Set("Accept", "image/png")
	if req, err = Parse(apierr.SVCNaming, r, KindFunction, "f"); err != nil || req.Media.Kind != MediaNone {
		t.Errorf("image/png: %+v, %v; want MediaNone", req, err)
	}
	if _, err = Parse(apierr.SVCNaming, r, KindRoot, ""); err == nil {
		t.Error("the root accepted image/png")
	}
}
