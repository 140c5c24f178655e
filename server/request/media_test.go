package request

import (
	"errors"
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
		{"application/vnd.svc.object+json", Media{Kind: MediaObject}},
		{"application/vnd.svc.array+json;nulls=stripped", Media{Kind: MediaArray, StripNulls: true}},
		{"application/vnd.svc.array;nulls=stripped", Media{Kind: MediaArray, StripNulls: true}},
		{"application/vnd.svc.array+json", Media{Kind: MediaJSON}},
		{"application/vnd.svc.object", Media{Kind: MediaObject}},
		{"application/vnd.svc.object;nulls=stripped", Media{Kind: MediaObject, StripNulls: true}},
		{"text/xml, text/csv;q=0.5, application/json;q=0.9", Media{Kind: MediaJSON}},
		{"application/json;q=0, text/csv", Media{Kind: MediaCSV}},
		{`application/vnd.svc.plan+json; for="text/csv"; options=analyze|verbose`,
			Media{Kind: MediaPlan, PlanJSON: true, PlanFor: MediaCSV, PlanOptions: []string{"analyze", "verbose"}}},
		{"application/vnd.svc.plan", Media{Kind: MediaPlan}},
		{"application/geo+json", Media{Kind: MediaGeoJSON}},
	}
	for _, c := range cases {
		got, err := NegotiateRelation(c.accept)
		if err != nil {
			t.Errorf("NegotiateRelation(%q): %v", c.accept, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("NegotiateRelation(%q) = %+v, want %+v", c.accept, got, c.want)
		}
	}
	for _, bad := range []string{"text/xml", "application/vnd.pgrst.object+json", "application/vnd.svc.plan; options=drop", "application/json;q=0"} {
		_, err := NegotiateRelation(bad)
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status != 415 || e.Code != "SVC107" {
			t.Errorf("NegotiateRelation(%q) = %v, want 415 SVC107", bad, err)
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
		if m, _ := NegotiateRelation(c.accept); m.ContentType() != c.contentType {
			t.Errorf("Content-Type for %q = %q, want %q", c.accept, m.ContentType(), c.contentType)
		}
	}
	if m, err := NegotiateRoot("*/*"); err != nil || m.Kind != MediaOpenAPI {
		t.Errorf("NegotiateRoot(*/*) = %+v, %v", m, err)
	}
	if _, err := NegotiateRoot("text/csv"); err == nil {
		t.Error("NegotiateRoot(text/csv) accepted")
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
