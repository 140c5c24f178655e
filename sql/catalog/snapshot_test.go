package catalog

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

func TestHeader(t *testing.T) {
	t.Parallel()
	s := introspect(t, fixtureURI)
	h := s.Header
	if h.GeneratorVersion != "test" || h.FormatVersion != snapshot.FormatVersion ||
		!reflect.DeepEqual(h.Schemas, []string{"api"}) || !reflect.DeepEqual(h.ExtraSearchPath, []string{"private"}) {
		t.Errorf("header %+v", h)
	}
	if h.PGVersionNum < 100000 || !strings.HasPrefix(h.PGVersion, "1") || h.CreatedAt.Location().String() != "UTC" {
		t.Errorf("header %+v: want the server version and a UTC time", h)
	}
	if len(h.Fingerprint) != 64 {
		t.Errorf("fingerprint %q, want hex sha256", h.Fingerprint)
	}
}

// TestFingerprint checks that an unchanged schema dumps identically and
// that each kind of change the server depends on shows in the fingerprint.
func TestFingerprint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	uri, err := newDatabase(ctx, "catalog_fingerprint", fixtureSQL)
	if err != nil {
		t.Fatal(err)
	}
	prev := introspect(t, uri)
	// Several runs, since map iteration order differs from run to run.
	for range 5 {
		again := introspect(t, uri)
		if again.Header.Fingerprint != prev.Header.Fingerprint || !reflect.DeepEqual(again.Content, prev.Content) {
			t.Fatalf("unchanged schema: fingerprint %s then %s", prev.Header.Fingerprint, again.Header.Fingerprint)
		}
	}
	changes := []struct{ name, sql string }{
		{"add column", "alter table api.tags add column color text"},
		{"grant", "grant delete on api.tags to cat_user"},
		{"add function", "create function api.tag_count() returns bigint language sql as 'select count(*) from api.tags'"},
		{"add unique key", "alter table api.author_profiles add constraint author_profiles_bio_key unique (bio)"},
		{"add computed field", "create function api.loud_label(api.tags) returns text language sql as 'select upper($1.label)'"},
		{"add cast", "create domain api.tone as text; " +
			"create function api.tone_json(api.tone) returns json language sql as 'select to_json($1::text)'; " +
			"create cast (api.tone as json) with function api.tone_json(api.tone) as implicit"},
	}
	for _, c := range changes {
		if err := execScript(ctx, uri, c.sql); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		next := introspect(t, uri)
		if next.Header.Fingerprint == prev.Header.Fingerprint {
			t.Errorf("%s: fingerprint unchanged", c.name)
		}
		prev = next
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	s := introspect(t, fixtureURI)
	var buf bytes.Buffer
	if err := snapshot.Encode(&buf, s); err != nil {
		t.Fatal(err)
	}
	got, err := snapshot.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.Header.Fingerprint != s.Header.Fingerprint {
		t.Errorf("fingerprint %s after decoding, was %s", got.Header.Fingerprint, s.Header.Fingerprint)
	}
	if !reflect.DeepEqual(got.Content, s.Content) {
		t.Error("content differs after a round trip (nil vs empty slices?)")
	}
}

func TestUnknownSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		schemas []string
		want    string
	}{
		{[]string{"api", "apii"}, `introspect: exposed schema "apii" does not exist`},
		{[]string{"nope", "api", "nada"}, `introspect: exposed schemas "nope", "nada" do not exist`},
		{nil, "introspect: no schemas to expose"},
	}
	for _, tt := range tests {
		_, err := introspectOpts(fixtureURI, Options{Schemas: tt.schemas})
		if err == nil || err.Error() != tt.want {
			t.Errorf("schemas %q: error %v, want %q", tt.schemas, err, tt.want)
		}
	}
}

// TestMissingSchemasAllowed: with Options.MissingSchemas, exposed schemas
// that do not exist are reported and the others introspected.
func TestMissingSchemasAllowed(t *testing.T) {
	t.Parallel()
	var gotMissing, gotExisting []string
	opts := fixtureOptions()
	opts.Schemas = []string{"nope", "api", "apii"}
	opts.MissingSchemas = func(missing, existing []string) error {
		gotMissing, gotExisting = missing, existing
		return nil
	}
	s, err := introspectOpts(fixtureURI, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gotMissing, []string{"nope", "apii"}) || !slices.Contains(gotExisting, "api") ||
		slices.Contains(gotExisting, "pg_catalog") || slices.Contains(gotExisting, "information_schema") {
		t.Errorf("missing %q, existing %q", gotMissing, gotExisting)
	}
	if !slices.Equal(s.Header.Schemas, []string{"api"}) || s.Relation(snapshot.QualifiedName{Schema: "api", Name: "books"}) == nil {
		t.Errorf("schemas %q; api.books found: %v", s.Header.Schemas, s.Relation(snapshot.QualifiedName{Schema: "api", Name: "books"}) != nil)
	}
	opts.MissingSchemas = func([]string, []string) error { return errors.New("refused") }
	if _, err := introspectOpts(fixtureURI, opts); err == nil || err.Error() != "refused" {
		t.Errorf("a refusing MissingSchemas: %v", err)
	}
}
