package catalog

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

// renderFunction writes a function's signature and shape on one line.
func renderFunction(f snapshot.Function) string {
	var args []string
	for _, a := range f.Arguments {
		s := fmt.Sprintf("%s %s %s", a.Mode, a.Name, a.Type)
		if a.HasDefault {
			s += " = default"
		}
		args = append(args, strings.Replace(s, "  ", " ", 1))
	}
	line := fmt.Sprintf("%s(%s) %s %s %s rows=%g", f.QualifiedName, strings.Join(args, ", "), f.Returns,
		f.ReturnType, f.Volatility, f.Rows)
	if f.ReturnsRecord {
		line += " record"
	}
	if f.Variadic {
		line += " variadic"
	}
	return line
}

func TestFunctions(t *testing.T) {
	t.Parallel()
	s := introspect(t, fixtureURI)
	var got []string
	for _, f := range s.Content.Functions {
		got = append(got, renderFunction(f))
	}
	// Sorted by name, overloads by argument types; no procedure (do_nothing)
	// and no trigger function (touch). OUT, INOUT and TABLE arguments make
	// rows, even a single one, as in PostgREST.
	want := []string{
		"api.add(in a integer, in b integer = default) scalar pg_catalog.int4 immutable rows=0",
		"api.add(in a numeric, in b numeric) scalar pg_catalog.numeric immutable rows=0",
		"api.aliases(in api.authors) setof_scalar pg_catalog.text stable rows=1000",
		"api.all_books() setof_composite api.books stable rows=1000",
		"api.any_body() scalar api.*/* stable rows=0",
		"api.anything() scalar pg_catalog.record immutable rows=0 record",
		"api.best_book(in api.authors) setof_composite api.books stable rows=1",
		"api.code_to_json(in api.code) scalar pg_catalog.json immutable rows=0",
		"api.colleagues(in api.employees) setof_composite api.employees stable rows=1000",
		"api.color_from_json(in json) scalar api.color immutable rows=0",
		"api.color_from_text(in text) scalar api.color immutable rows=0",
		"api.color_to_json(in api.color) scalar pg_catalog.json immutable rows=0",
		"api.cover() scalar api.image/png stable rows=0",
		"api.covers() setof_scalar api.image/png stable rows=1000",
		"api.first_book(in api.authors) composite api.books stable rows=0",
		"api.geo_final(in state jsonb) scalar api.application/vnd.Geo+json immutable rows=0",
		"api.geo_step(in state jsonb, in next anyelement) scalar pg_catalog.jsonb immutable rows=0",
		"api.html_step(in state api.\"text/html\", in next api.authors) scalar api.text/html immutable rows=0",
		"api.initials(in api.authors) scalar pg_catalog.text stable rows=0",
		"api.label_words(in api.book_list) scalar pg_catalog.tsvector stable rows=0",
		"api.lookup(in code api.code_d) scalar hidden.posint stable rows=0",
		"api.name(in api.authors) scalar pg_catalog.text stable rows=0",
		"api.noop() void pg_catalog.void volatile rows=0",
		"api.pair(out x integer, out y integer) composite pg_catalog.record immutable rows=0",
		"api.ranked(in n integer, table pos bigint, table title text) setof_composite pg_catalog.record stable rows=1000",
		"api.scaled(in api.books, in factor integer) scalar pg_catalog.int4 stable rows=0",
		"api.shade(in api.authors) scalar api.color stable rows=0",
		// A domain over a table's type returns the table's rows.
		"api.shelved() setof_composite api.books stable rows=1000",
		"api.single_out(in a integer, out doubled integer) composite pg_catalog.int4 immutable rows=0",
		"api.slow(inout n integer, in label text = default) composite pg_catalog.int4 volatile rows=0",
		"api.sum_all(variadic nums integer[]) scalar pg_catalog.int4 immutable rows=0 variadic",
		"api.tag_ids(in api.books) scalar pg_catalog._int4 stable rows=0",
		"api.titles() setof_scalar pg_catalog.text stable rows=1000",
		"api.top_author() composite api.authors stable rows=0",
		"api.written(in api.authors) setof_composite api.books stable rows=10",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("functions differ\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestFunctionDetails(t *testing.T) {
	t.Parallel()
	s := introspect(t, fixtureURI)
	defaultGrants := []snapshot.Grant{
		{Grantee: "PUBLIC", Privileges: []string{"EXECUTE"}},
		{Grantee: "postgres", Privileges: []string{"EXECUTE"}},
	}
	tests := []snapshot.Function{
		{
			QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "noop"},
			Description:   "Does nothing",
			Arguments:     []snapshot.Argument{},
			ReturnType:    snapshot.QualifiedName{Schema: "pg_catalog", Name: "void"},
			Returns:       snapshot.ReturnsVoid,
			Volatility:    snapshot.Volatile,
			Owner:         "postgres",
			Grants:        defaultGrants,
		},
		{
			QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "slow"},
			Arguments: []snapshot.Argument{
				{Name: "n", Type: "integer", Mode: snapshot.ArgInOut},
				{Name: "label", Type: "text", Mode: snapshot.ArgIn, HasDefault: true},
			},
			ReturnType: snapshot.QualifiedName{Schema: "pg_catalog", Name: "int4"},
			Returns:    snapshot.ReturnsComposite,
			Volatility: snapshot.Volatile,
			Owner:      "postgres",
			// Revoked from PUBLIC, granted to a role.
			Grants: []snapshot.Grant{
				{Grantee: "cat_user", Privileges: []string{"EXECUTE"}},
				{Grantee: "postgres", Privileges: []string{"EXECUTE"}},
			},
			Settings: []string{"statement_timeout=1s"},
		},
	}
	for _, want := range tests {
		fs := s.Functions(want.QualifiedName)
		if len(fs) != 1 {
			t.Fatalf("%s: %d functions, want 1", want.QualifiedName, len(fs))
		}
		if !reflect.DeepEqual(*fs[0], want) {
			t.Errorf("\n got %+v\nwant %+v", *fs[0], want)
		}
	}
	if got := len(s.Functions(snapshot.QualifiedName{Schema: "api", Name: "add"})); got != 2 {
		t.Errorf("api.add has %d overloads, want 2", got)
	}
}

func TestCasts(t *testing.T) {
	t.Parallel()
	s := introspect(t, fixtureURI)
	fn := func(name string) snapshot.QualifiedName { return snapshot.QualifiedName{Schema: "api", Name: name} }
	// The implicit casts between a domain and json or text, sorted by
	// source and target; api.code's cast to json is not implicit.
	want := []snapshot.Cast{
		{Source: "api.color", Target: "json", Function: fn("color_to_json")},
		{Source: "json", Target: "api.color", Function: fn("color_from_json")},
		{Source: "text", Target: "api.color", Function: fn("color_from_text")},
	}
	if !reflect.DeepEqual(s.Content.Casts, want) {
		t.Errorf("casts\n got %+v\nwant %+v", s.Content.Casts, want)
	}
}

func TestRoles(t *testing.T) {
	t.Parallel()
	s := introspect(t, fixtureURI)
	tests := []snapshot.Role{
		{Name: "cat_anon", Inherit: true},
		// The database-specific work_mem wins over the one for all databases;
		// log_min_duration_statement (superuser only) is left out.
		{Name: "cat_user", MemberOf: []string{"cat_anon"}, Inherit: true,
			Settings: []string{"app.tenant=acme", "statement_timeout=5s", "work_mem=8MB"}},
		{Name: "cat_admin", MemberOf: []string{"cat_anon", "cat_user"}},
	}
	for _, want := range tests {
		got := s.Role(want.Name)
		if got == nil {
			t.Fatalf("role %s missing", want.Name)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("\n got %+v\nwant %+v", *got, want)
		}
	}
	for _, r := range s.Content.Roles {
		if strings.HasPrefix(r.Name, "pg_") {
			t.Errorf("predefined role %s listed", r.Name)
		}
	}
	if su := s.Role("postgres"); su == nil || !su.Superuser {
		t.Errorf("postgres: %+v, want a superuser", su)
	}
}

func TestMediaHandlers(t *testing.T) {
	t.Parallel()
	s := introspect(t, fixtureURI)
	api := func(name string) snapshot.QualifiedName { return snapshot.QualifiedName{Schema: "api", Name: name} }
	pg := func(name string) snapshot.QualifiedName {
		return snapshot.QualifiedName{Schema: "pg_catalog", Name: name}
	}
	// Sorted by media type (lowercased, as matched); the aggregate in the
	// private schema is not one.
	want := []snapshot.MediaHandler{
		{Media: snapshot.MediaDomain{Type: "application/vnd.geo+json", Send: pg("jsonb_send")}, Aggregate: api("any_geo")},
		{Media: snapshot.MediaDomain{Type: "text/html", Send: pg("textsend")}, Aggregate: api("authors_html"), Relation: api("authors")},
	}
	if !reflect.DeepEqual(s.Content.MediaHandlers, want) {
		t.Errorf("media handlers\n got %+v\nwant %+v", s.Content.MediaHandlers, want)
	}
	media := map[string]*snapshot.MediaDomain{
		"cover":    {Type: "image/png", Send: pg("byteasend")},
		"any_body": {Type: "*/*", Send: pg("byteasend")},
		"covers":   nil, // a set of values is not a body
	}
	for name, want := range media {
		fs := s.Functions(api(name))
		if len(fs) != 1 {
			t.Fatalf("api.%s: %d overloads", name, len(fs))
		}
		if !reflect.DeepEqual(fs[0].Media, want) {
			t.Errorf("api.%s media: got %+v, want %+v", name, fs[0].Media, want)
		}
	}
}
