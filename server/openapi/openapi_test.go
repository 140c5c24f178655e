package openapi

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

func ptr(s string) *string { return &s }

func grant(role string, privs ...string) []snapshot.Grant {
	return []snapshot.Grant{{Grantee: role, Privileges: privs}}
}

func name(n string) snapshot.QualifiedName { return snapshot.QualifiedName{Schema: "api", Name: n} }

// table is a writable table with an integer key, granted to grants.
func table(n string, grants []snapshot.Grant) snapshot.Relation {
	return snapshot.Relation{QualifiedName: name(n), Kind: snapshot.KindTable, PrimaryKey: []string{"id"},
		Insertable: true, Updatable: true, Deletable: true, Grants: grants,
		Columns: []snapshot.Column{{Name: "id", Type: "integer"}}}
}

// fixture is a small schema: relations of every kind, functions, and the
// roles anon (granted directly and through PUBLIC) and user (inheriting
// from member).
func fixture(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	things := table("things", grant("anon", "SELECT", "INSERT", "UPDATE", "DELETE"))
	things.Description = "Things\n\nAll the things."
	// Nullable where no NOT NULL is declared: id and code are required,
	// label, price and at have defaults, gen is generated.
	things.Columns = []snapshot.Column{
		{Name: "id", Type: "integer", Description: "Key"},
		{Name: "code", Type: "character varying(8)", MaxLength: 8},
		{Name: "label", Type: "text", Default: ptr("'none'::text")},
		{Name: "mood", Type: "api.mood", Nullable: true, EnumValues: []string{"up", "down"}},
		{Name: "price", Type: "api.money_d", BaseType: "numeric(10,2)", Default: ptr("0")},
		{Name: "at", Type: "timestamp(3) with time zone", Default: ptr("now()")},
		{Name: "data", Type: "jsonb", Nullable: true},
		{Name: "tags", Type: "text[]", Nullable: true, Default: ptr("'{}'::text[]")},
		{Name: "owner_id", Type: "integer", Nullable: true},
		{Name: "gen", Type: "integer", Generated: true},
		{Name: "order", Type: "text", Nullable: true},
	}
	stuck := table("stuck_view", grant("PUBLIC", "SELECT", "INSERT", "UPDATE", "DELETE"))
	stuck.Kind, stuck.Insertable, stuck.Updatable, stuck.Deletable = snapshot.KindView, false, false, false
	auto := table("auto_view", grant("PUBLIC", "SELECT", "INSERT", "UPDATE", "DELETE"))
	auto.Kind, auto.Insertable = snapshot.KindView, false
	mat := table("stats", grant("PUBLIC", "SELECT", "INSERT", "UPDATE", "DELETE"))
	mat.Kind = snapshot.KindMaterializedView
	part := table("events", grant("anon", "SELECT"))
	part.Kind = snapshot.KindPartitionedTable
	cols := table("inbox", grant("anon", "SELECT"))
	cols.Columns = append(cols.Columns, snapshot.Column{Name: "body", Type: "text", Nullable: true, Grants: grant("anon", "INSERT")})
	owners := table("owners", grant("member", "SELECT", "DELETE"))
	odd := table("a/b c", nil)
	other := table("elsewhere", grant("PUBLIC", "SELECT"))
	other.Schema = "other"

	fn := func(n string, v snapshot.Volatility, grants []snapshot.Grant, args ...snapshot.Argument) snapshot.Function {
		return snapshot.Function{QualifiedName: name(n), Volatility: v, Grants: grants, Arguments: args, Returns: snapshot.ReturnsScalar}
	}
	in := func(n, typ string, def bool) snapshot.Argument {
		return snapshot.Argument{Name: n, Type: typ, Mode: snapshot.ArgIn, HasDefault: def}
	}
	sum := fn("sum", snapshot.Stable, grant("PUBLIC", "EXECUTE"), in("a", "integer", false), in("b", "integer", true),
		snapshot.Argument{Name: "total", Type: "integer", Mode: snapshot.ArgOut})
	sum.Description = "Adds\nnumbers"
	snap, err := snapshot.New(snapshot.Header{}, snapshot.Content{
		Relations: []snapshot.Relation{things, stuck, auto, mat, part, cols, owners, odd, other},
		Relationships: []snapshot.Relationship{{Table: name("things"), ForeignTable: name("owners"),
			Cardinality: snapshot.ManyToOne, Constraint: "things_owner_id_fkey",
			Columns: []snapshot.ColumnPair{{Column: "owner_id", ForeignColumn: "id"}}}},
		Functions: []snapshot.Function{
			sum,
			fn("bump", snapshot.Volatile, grant("PUBLIC", "EXECUTE"), in("n", "integer", false)),
			fn("secret", snapshot.Stable, grant("member", "EXECUTE")),
			fn("total", snapshot.Immutable, grant("PUBLIC", "EXECUTE"),
				snapshot.Argument{Name: "v", Type: "integer[]", Mode: snapshot.ArgVariadic}),
			fn("echo", snapshot.Immutable, grant("PUBLIC", "EXECUTE"), in("", "json", false)),
			fn("feel", snapshot.Stable, grant("PUBLIC", "EXECUTE"), in("m", "api.mood", false)),
			fn("over", snapshot.Immutable, grant("PUBLIC", "EXECUTE"), in("a", "integer", false)),
			fn("over", snapshot.Volatile, grant("PUBLIC", "EXECUTE"), in("a", "integer", false), in("b", "text", false)),
		},
		Roles: []snapshot.Role{{Name: "anon", Inherit: true}, {Name: "member", Inherit: true},
			{Name: "user", Inherit: true, MemberOf: []string{"member"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// build returns the document for opts (schema api unless set) as generic JSON.
func build(t *testing.T, snap *snapshot.Snapshot, opts Options) map[string]any {
	t.Helper()
	if opts.Schema == "" {
		opts.Schema = "api"
	}
	opts.Vendor = "svc"
	b, err := Build(snap, opts)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// at walks doc along keys; nil when a key is missing.
func at(doc any, keys ...string) any {
	for _, k := range keys {
		m, ok := doc.(map[string]any)
		if !ok {
			return nil
		}
		doc = m[k]
	}
	return doc
}

// methods lists the operations of a path, sorted; nil when absent.
func methods(doc map[string]any, path string) []string {
	item, ok := at(doc, "paths", path).(map[string]any)
	if !ok {
		return nil
	}
	out := []string{}
	for m := range item {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

func TestOperations(t *testing.T) {
	t.Parallel()
	snap := fixture(t)
	anon := build(t, snap, Options{Role: "anon", FollowPrivileges: true})
	user := build(t, snap, Options{Role: "user", FollowPrivileges: true})
	all := build(t, snap, Options{Role: "anon"})
	all4 := []string{"delete", "get", "patch", "post"}
	for _, c := range []struct {
		name string
		doc  map[string]any
		path string
		want []string
	}{
		{"granted table", anon, "/things", all4},
		{"view that takes no writes, all granted", anon, "/stuck_view", []string{"get"}},
		{"auto-updatable view without inserts", anon, "/auto_view", []string{"delete", "get", "patch"}},
		{"materialized view never takes writes", anon, "/stats", []string{"get"}},
		{"partitioned table, select only", anon, "/events", []string{"get"}},
		{"column insert grant", anon, "/inbox", []string{"get", "post"}},
		{"not granted", anon, "/owners", nil},
		{"inherited grant", user, "/owners", []string{"delete", "get"}},
		{"PUBLIC grant", user, "/stuck_view", []string{"get"}},
		{"user holds nothing of anon's", user, "/things", nil},
		{"ignore-privileges: ungranted table", all, "/owners", all4},
		{"ignore-privileges: escaped name", all, "/a%2Fb%20c", all4},
		{"other schemas are not described", all, "/elsewhere", nil},
		{"stable function", anon, "/rpc/sum", []string{"get", "post"}},
		{"volatile function", anon, "/rpc/bump", []string{"post"}},
		{"function not executable", anon, "/rpc/secret", nil},
		{"function executable through membership", user, "/rpc/secret", []string{"get", "post"}},
		{"overloads, one not volatile", anon, "/rpc/over", []string{"get", "post"}},
	} {
		if got := methods(c.doc, c.path); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %s offers %v, want %v", c.name, c.path, got, c.want)
		}
	}
	if at(anon, "definitions", "owners") != nil || at(anon, "parameters", "body.owners") != nil {
		t.Error("a relation the role cannot use is defined")
	}
	if at(all, "definitions", "a/b c") == nil {
		t.Error("no definition for a/b c")
	}
	ref := at(all, "paths", "/a%2Fb%20c", "post", "parameters").([]any)[0]
	if got := at(ref, "$ref"); got != "#/parameters/body.a~1b%20c" {
		t.Errorf("escaped parameter ref = %v", got)
	}
}

func TestDefinition(t *testing.T) {
	t.Parallel()
	doc := build(t, fixture(t), Options{Role: "anon", FollowPrivileges: true})
	def := at(doc, "definitions", "things")
	if got := at(def, "required"); !reflect.DeepEqual(got, []any{"id", "code"}) {
		t.Errorf("required = %v, want NOT NULL columns without default: [id code]", got)
	}
	if got := at(def, "description"); got != "Things\n\nAll the things." {
		t.Errorf("description = %q", got)
	}
	want := map[string]string{
		"id":       `{"description":"Key\n\nNote:\nThis is a Primary Key.\u003cpk/\u003e","type":"integer","format":"int32"}`,
		"code":     `{"type":"string","format":"character varying","maxLength":8}`,
		"label":    `{"type":"string","format":"text","default":"none"}`,
		"mood":     `{"type":"string","format":"api.mood","enum":["up","down"]}`,
		"price":    `{"type":"number","format":"api.money_d","default":0}`,
		"at":       `{"type":"string","format":"timestamp with time zone"}`,
		"data":     `{"format":"jsonb"}`,
		"tags":     `{"type":"array","format":"text[]","items":{"type":"string"},"default":[]}`,
		"owner_id": `{"description":"Note:\nThis is a Foreign Key to ` + "`owners.id`" + `.\u003cfk table='owners' column='id'/\u003e","type":"integer","format":"int32"}`,
	}
	for col, w := range want {
		got, _ := json.Marshal(at(def, "properties", col))
		var g, e any
		json.Unmarshal(got, &g)
		if err := json.Unmarshal([]byte(w), &e); err != nil {
			t.Fatalf("%s: bad expectation: %v", col, err)
		}
		if !reflect.DeepEqual(g, e) {
			t.Errorf("property %s = %s\nwant %s", col, got, w)
		}
	}
	// A column named like a reserved parameter gets no row filter.
	if at(doc, "parameters", "rowFilter.things.order") != nil {
		t.Error("row filter for column order")
	}
	if got := at(doc, "parameters", "rowFilter.things.code", "format"); got != "character varying" {
		t.Errorf("row filter format = %v", got)
	}
}

func TestFunctionParameters(t *testing.T) {
	t.Parallel()
	doc := build(t, fixture(t), Options{Role: "anon", FollowPrivileges: true})
	check := func(what string, got any, want string) {
		t.Helper()
		var w any
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			t.Fatal(err)
		}
		g, _ := json.Marshal(got)
		var gv any
		json.Unmarshal(g, &gv)
		if !reflect.DeepEqual(gv, w) {
			t.Errorf("%s = %s\nwant %s", what, g, want)
		}
	}
	check("sum GET", at(doc, "paths", "/rpc/sum", "get", "parameters"),
		`[{"name":"a","in":"query","required":true,"type":"integer","format":"int32"},
		  {"name":"b","in":"query","required":false,"type":"integer","format":"int32"}]`)
	check("sum POST", at(doc, "paths", "/rpc/sum", "post", "parameters"),
		`[{"name":"args","in":"body","required":true,"schema":{"type":"object","required":["a"],"description":"Adds\nnumbers",
		   "properties":{"a":{"type":"integer","format":"int32"},"b":{"type":"integer","format":"int32"}}}},
		  {"$ref":"#/parameters/preferParams"}]`)
	check("sum summary", at(doc, "paths", "/rpc/sum", "post", "summary"), `"Adds"`)
	check("sum description", at(doc, "paths", "/rpc/sum", "post", "description"), `"numbers"`)
	check("variadic GET", at(doc, "paths", "/rpc/total", "get", "parameters"),
		`[{"name":"v","in":"query","required":true,"type":"array","items":{"type":"integer","format":"int32"},"collectionFormat":"multi"}]`)
	// An argument of the schema's own type is named as the requests'
	// search path prints it, as PostgREST names it.
	check("feel GET", at(doc, "paths", "/rpc/feel", "get", "parameters"),
		`[{"name":"m","in":"query","required":true,"type":"string","format":"mood"}]`)
	feel := at(doc, "paths", "/rpc/feel", "post", "parameters").([]any)[0]
	check("feel POST", at(feel, "schema", "properties", "m"), `{"type":"string","format":"mood"}`)
	check("unnamed json body", at(doc, "paths", "/rpc/echo", "post", "parameters"),
		`[{"name":"args","in":"body","required":true,"schema":{"format":"json"}},{"$ref":"#/parameters/preferParams"}]`)
	check("unnamed argument is no query parameter", at(doc, "paths", "/rpc/echo", "get", "parameters"), `null`)
	body := at(doc, "paths", "/rpc/over", "post", "parameters").([]any)[0]
	check("overloads merged", at(body, "schema", "required"), `["a"]`)
}

func TestServerAndSecurity(t *testing.T) {
	t.Parallel()
	snap := fixture(t)
	doc := build(t, snap, Options{Role: "anon", Version: "1.2.3", Scheme: "https", Host: "api.example:443", BasePath: "/v1", Security: true})
	if at(doc, "swagger") != "2.0" || at(doc, "info", "version") != "1.2.3" || at(doc, "host") != "api.example:443" ||
		at(doc, "basePath") != "/v1" || !reflect.DeepEqual(at(doc, "schemes"), []any{"https"}) {
		t.Errorf("header fields: %v %v %v %v %v", at(doc, "swagger"), at(doc, "info"), at(doc, "host"), at(doc, "basePath"), at(doc, "schemes"))
	}
	jwt := at(doc, "securityDefinitions", "JWT")
	if at(jwt, "type") != "apiKey" || at(jwt, "in") != "header" || at(jwt, "name") != "Authorization" ||
		at(jwt, "description") != `Add the token prepending "Bearer " (without quotes) to it` {
		t.Errorf("securityDefinitions.JWT = %v", jwt)
	}
	if !reflect.DeepEqual(at(doc, "security"), []any{map[string]any{"JWT": []any{}}}) {
		t.Errorf("security = %v", at(doc, "security"))
	}
	plain := build(t, snap, Options{Role: "anon"})
	if at(plain, "securityDefinitions") != nil || at(plain, "security") != nil {
		t.Error("security without Options.Security")
	}
	if !reflect.DeepEqual(at(plain, "produces"), []any{"application/json",
		"application/vnd.svc.object+json;nulls=stripped", "application/vnd.svc.object+json", "text/csv"}) {
		t.Errorf("produces = %v", at(plain, "produces"))
	}
	for _, p := range []string{"preferParams", "preferReturn", "preferCount", "preferPost", "select",
		"on_conflict", "order", "range", "rangeUnit", "offset", "limit"} {
		if at(plain, "parameters", p) == nil {
			t.Errorf("shared parameter %s missing", p)
		}
	}
}

func TestDefaultValue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		expr, typ string
		want      any
	}{
		{"'abc'::text", "string", "abc"},
		{"'it''s'::character varying", "string", "it's"},
		{"42", "integer", json.Number("42")},
		{"'-1'::integer", "integer", json.Number("-1")},
		{"(-1)", "integer", json.Number("-1")},
		{"1.5", "number", json.Number("1.5")},
		{"1.5", "integer", nil},
		{"'NaN'::numeric", "number", nil},
		{"true", "boolean", true},
		{"false", "boolean", false},
		{"'{}'::text[]", "array", []any{}},
		{"'{a}'::text[]", "array", nil},
		{`'{"a": 1}'::jsonb`, "", json.RawMessage(`{"a": 1}`)},
		{"now()", "string", nil},
		{"nextval('s'::regclass)", "integer", nil},
		{"CURRENT_USER", "string", nil},
		{"'x'::text || 'y'::text", "string", nil},
		{"NULL::text", "string", nil},
	} {
		if got := defaultValue(c.expr, c.typ); !reflect.DeepEqual(got, c.want) {
			t.Errorf("defaultValue(%q, %q) = %#v, want %#v", c.expr, c.typ, got, c.want)
		}
	}
}

// TestTypes: a value's Swagger type and format, the format of an integer
// one of the two OpenAPI 2.0 defines.
func TestTypes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ declared, base, typ, format, items string }{
		{"integer", "integer", "integer", "int32", ""},
		{"smallint", "smallint", "integer", "int32", ""},
		{"bigint", "bigint", "integer", "int64", ""},
		{"numeric(10,2)", "numeric(10,2)", "number", "numeric", ""},
		{"double precision", "double precision", "number", "double precision", ""},
		{"boolean", "boolean", "boolean", "boolean", ""},
		{"character varying(20)[]", "character varying(20)[]", "array", "character varying[]", "string"},
		{"integer[]", "integer[]", "array", "integer[]", "integer"},
		{"uuid", "uuid", "string", "uuid", ""},
		{"api.email", "text", "string", "api.email", ""},
		{"json", "json", "", "json", ""},
	} {
		s := typeSchema(c.declared, c.base)
		items := ""
		if s.Items != nil {
			items = s.Items.Type
		}
		if s.Type != c.typ || s.Format != c.format || items != c.items {
			t.Errorf("typeSchema(%q, %q) = %q %q items %q; want %q %q items %q", c.declared, c.base, s.Type, s.Format, items, c.typ, c.format, c.items)
		}
	}
}

// TestArgumentTypeNames: an argument's type of a schema on the requests'
// search path is named as PostgreSQL prints it to them, unqualified, as
// PostgREST names arguments; one of another schema keeps its schema.
func TestArgumentTypeNames(t *testing.T) {
	t.Parallel()
	snap, err := snapshot.New(snapshot.Header{Schemas: []string{"api"}, ExtraSearchPath: []string{"ext", "My Ext"}}, snapshot.Content{})
	if err != nil {
		t.Fatal(err)
	}
	b := &builder{snap: snap, opts: Options{Schema: "api"}}
	for declared, want := range map[string]string{
		"integer": "integer", "character varying(20)": "character varying", "api.mood": "mood", "api.mood[]": "mood[]",
		"ext.citext": "citext", `"My Ext".tag`: "tag", "other.email": "other.email", "apix.t": "apix.t",
	} {
		if got := b.typeName(declared); got != want {
			t.Errorf("typeName(%q) = %q, want %q", declared, got, want)
		}
	}
}

// TestColumnsFollowPrivileges: following privileges, a definition names
// the columns the role may read or write, requires only those, and offers
// filters on the ones it may read.
func TestColumnsFollowPrivileges(t *testing.T) {
	t.Parallel()
	notes := table("notes", nil)
	notes.Columns = []snapshot.Column{
		{Name: "id", Type: "integer", Grants: grant("anon", "SELECT", "INSERT")},
		{Name: "body", Type: "text", Grants: grant("anon", "SELECT")},
		{Name: "pin", Type: "text", Grants: grant("anon", "INSERT")},
		{Name: "ssn", Type: "text"},
	}
	snap, err := snapshot.New(snapshot.Header{}, snapshot.Content{Relations: []snapshot.Relation{notes},
		Roles: []snapshot.Role{{Name: "anon", Inherit: true}}})
	if err != nil {
		t.Fatal(err)
	}
	anon := build(t, snap, Options{Role: "anon", FollowPrivileges: true})
	all := build(t, snap, Options{Role: "anon"})
	props := func(doc map[string]any) []string {
		var out []string
		for k := range at(doc, "definitions", "notes", "properties").(map[string]any) {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	if got := props(anon); !reflect.DeepEqual(got, []string{"body", "id", "pin"}) {
		t.Errorf("following privileges: properties %v, want [body id pin]", got)
	}
	if got := props(all); !reflect.DeepEqual(got, []string{"body", "id", "pin", "ssn"}) {
		t.Errorf("ignoring privileges: properties %v, want all four", got)
	}
	if got := at(anon, "definitions", "notes", "required"); !reflect.DeepEqual(got, []any{"id", "body", "pin"}) {
		t.Errorf("required = %v, want [id body pin] (ssn is not named)", got)
	}
	for col, want := range map[string]bool{"id": true, "body": true, "pin": false, "ssn": false} {
		if got := at(anon, "parameters", "rowFilter.notes."+col) != nil; got != want {
			t.Errorf("filter on %s offered: %v, want %v", col, got, want)
		}
	}
}

// TestForeignKeyNotes: a column holding a single-column key gets its
// <fk .../> note: of a many-to-one relationship, and of a one-to-one one
// on the side that holds the key only; where the key is also traced to a
// view over the referenced table, the note names the table.
func TestForeignKeyNotes(t *testing.T) {
	t.Parallel()
	first, second, seconds := table("first", nil), table("second", nil), table("seconds_view", nil)
	seconds.Kind = snapshot.KindView
	first.Columns = append(first.Columns, snapshot.Column{Name: "second_id", Type: "integer"})
	second.Columns = append(second.Columns, snapshot.Column{Name: "first_id", Type: "integer"})
	one := func(from, to, col, fcol string, referencing bool) snapshot.Relationship {
		return snapshot.Relationship{Table: name(from), ForeignTable: name(to), Cardinality: snapshot.OneToOne,
			Constraint: "first_second_id_fkey", Referencing: referencing,
			Columns: []snapshot.ColumnPair{{Column: col, ForeignColumn: fcol}}}
	}
	snap, err := snapshot.New(snapshot.Header{}, snapshot.Content{
		Relations: []snapshot.Relation{first, second, seconds},
		// The view's relationship comes first, as a snapshot may list it.
		Relationships: []snapshot.Relationship{one("first", "seconds_view", "second_id", "id", true),
			one("first", "second", "second_id", "id", true), one("second", "first", "id", "second_id", false)},
	})
	if err != nil {
		t.Fatal(err)
	}
	doc := build(t, snap, Options{})
	want := "Note:\nThis is a Foreign Key to `second.id`.<fk table='second' column='id'/>"
	if got := at(doc, "definitions", "first", "properties", "second_id", "description"); got != want {
		t.Errorf("first.second_id description = %q, want %q", got, want)
	}
	if got := at(doc, "definitions", "second", "properties", "id", "description"); got != "Note:\nThis is a Primary Key.<pk/>" {
		t.Errorf("second.id, referenced by a one-to-one key, description = %q, want its primary key's note only", got)
	}
}
