package openapi

import (
	"encoding/json"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

// domainsFixture is a table and a view over domains: a positive integer,
// a NOT NULL code with a pattern, a domain over the positive one, a
// domain with a check JSON Schema cannot state, an array of a domain, and
// a function taking and returning domains.
func domainsFixture(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	dom := func(schema, n, base string, notNull bool, checks ...string) snapshot.Domain {
		d := snapshot.Domain{QualifiedName: snapshot.QualifiedName{Schema: schema, Name: n}, Type: schema + "." + n,
			BaseType: base, NotNull: notNull}
		for i, c := range checks {
			d.Checks = append(d.Checks, snapshot.DomainCheck{Name: n + "_check" + string(rune('0'+i)), Expr: c, Validated: true})
		}
		return d
	}
	lower := dom("api", "lower_text", "text", false, "(lower(VALUE) = VALUE)", "(char_length(VALUE) <= 10)")
	lower.Description = "Lower-case words."
	rows := table("rows", grant("PUBLIC", "SELECT", "INSERT"))
	rows.Columns = []snapshot.Column{
		{Name: "id", Type: "integer"},
		{Name: "n", Type: "hidden.posint", BaseType: "integer", Nullable: true},
		{Name: "code", Type: "api.code", BaseType: "text", Nullable: true},
		{Name: "small", Type: "api.small", BaseType: "integer", Nullable: true, Default: ptr("1")},
		{Name: "word", Type: "api.lower_text", BaseType: "text"},
		{Name: "ns", Type: "hidden.posint[]", BaseType: "integer[]", Nullable: true},
		{Name: "color", Type: "api.color", BaseType: "integer", Nullable: true},
	}
	view := table("row_view", grant("PUBLIC", "SELECT"))
	view.Kind = snapshot.KindView
	view.Columns = []snapshot.Column{{Name: "code", Type: "api.code", BaseType: "text", Nullable: true}}
	snap, err := snapshot.New(snapshot.Header{}, snapshot.Content{
		Relations: []snapshot.Relation{rows, view},
		Functions: []snapshot.Function{{QualifiedName: name("pick"), Volatility: snapshot.Stable, Grants: grant("PUBLIC", "EXECUTE"),
			Arguments: []snapshot.Argument{{Name: "c", Type: "api.code", Mode: snapshot.ArgIn}, {Name: "n", Type: "hidden.posint", Mode: snapshot.ArgIn}},
			Returns:   snapshot.ReturnsScalar, ReturnType: snapshot.QualifiedName{Schema: "hidden", Name: "posint"}}},
		Domains: []snapshot.Domain{
			dom("hidden", "posint", "integer", false, "(VALUE > 0)"),
			dom("api", "code", "text", true, "(VALUE ~ '^[A-Z]+$'::text)"),
			dom("api", "small", "hidden.posint", false, "((VALUE)::integer <= 9)"),
			lower,
			dom("api", "color", "integer", false, "((VALUE >= 0) AND (VALUE <= 16777215))"),
		},
		Casts: []snapshot.Cast{{Source: "api.color", Target: "json", Function: name("color_json")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestOpenAPI31Domains: each domain used is a component its columns,
// arguments and results refer to, with its checks as keywords, a domain
// over a domain refers to the one under it, a NOT NULL domain makes a
// table's column and an argument non-nullable, and what JSON Schema
// cannot state is quoted in the description. A domain read and written
// through casts to and from json is any value: its base type says
// nothing of that form.
func TestOpenAPI31Domains(t *testing.T) {
	t.Parallel()
	doc := build31(t, domainsFixture(t), "anon", true)
	schemas := at(doc, "components", "schemas")
	props := at(schemas, "rows", "properties")
	for _, c := range []struct {
		what string
		got  any
		want string
	}{
		{"hidden.posint", at(schemas, "hidden.posint"), `{"type":"integer","format":"hidden.posint","exclusiveMinimum":0}`},
		{"api.code", at(schemas, "api.code"), `{"type":"string","format":"api.code","pattern":"^[A-Z]+$"}`},
		{"api.small", at(schemas, "api.small"), `{"allOf":[{"$ref":"#/components/schemas/hidden.posint"}],"maximum":9}`},
		{"api.lower_text", at(schemas, "api.lower_text"), `{"type":"string","format":"api.lower_text","maxLength":10,
			"description":"Lower-case words.\n\nValues must also pass: CHECK ((lower(VALUE) = VALUE))."}`},
		{"represented", at(schemas, "api.color"), `{"description":"Read and written in the form the casts of api.color to and from json give it.\n\nStored values must pass: CHECK (((VALUE >= 0) AND (VALUE <= 16777215)))."}`},
		{"nullable column", at(props, "n"), `{"anyOf":[{"$ref":"#/components/schemas/hidden.posint"},{"type":"null"}]}`},
		{"NOT NULL domain", at(props, "code"), `{"$ref":"#/components/schemas/api.code"}`},
		{"default", at(props, "small"), `{"anyOf":[{"$ref":"#/components/schemas/api.small"},{"type":"null"}],"default":1}`},
		{"array", at(props, "ns"), `{"type":["array","null"],"format":"hidden.posint[]","items":{"$ref":"#/components/schemas/hidden.posint"}}`},
		{"view column", at(schemas, "row_view", "properties", "code"), `{"anyOf":[{"$ref":"#/components/schemas/api.code"},{"type":"null"}]}`},
		{"arguments", at(doc, "paths", "/rpc/pick", "post", "requestBody", "content", "application/json", "schema", "properties"),
			`{"c":{"$ref":"#/components/schemas/api.code"},"n":{"anyOf":[{"$ref":"#/components/schemas/hidden.posint"},{"type":"null"}]}}`},
		{"query argument", at(doc, "paths", "/rpc/pick", "get", "parameters").([]any)[0], `{"name":"c","in":"query","required":true,"schema":{"$ref":"#/components/schemas/api.code"}}`},
		{"result", at(doc, "paths", "/rpc/pick", "post", "responses", "200", "content", "application/json", "schema"),
			`{"anyOf":[{"$ref":"#/components/schemas/hidden.posint"},{"type":"null"}]}`},
		{"insert requires the NOT NULL domain's column", at(doc, "paths", "/rows", "post", "requestBody", "content", "application/x-www-form-urlencoded", "schema", "required"),
			`["id","code","word"]`},
	} {
		got, err := json.Marshal(c.got)
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(t, got, c.want) {
			t.Errorf("%s: %s\nwant %s", c.what, got, c.want)
		}
	}
}
