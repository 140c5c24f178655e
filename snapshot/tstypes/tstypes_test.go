package tstypes

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

func ptr(s string) *string { return &s }

// shop is a small schema in the snapshot's model: a table with every
// sort of column, a table referencing it (many-to-one and one-to-one), a
// read-only view, an enum, a domain, functions, and a role that may read
// one table only.
func shop(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	q := func(n string) snapshot.QualifiedName { return snapshot.QualifiedName{Schema: "shop", Name: n} }
	readOnly := []snapshot.Grant{{Grantee: "reader", Privileges: []string{snapshot.PrivSelect}}}
	c := snapshot.Content{
		Relations: []snapshot.Relation{{
			QualifiedName: q("items"), Kind: snapshot.KindTable, PrimaryKey: []string{"id"},
			Insertable: true, Updatable: true, Deletable: true, Grants: readOnly,
			Columns: []snapshot.Column{
				{Name: "id", Type: "bigint", Generated: true},
				{Name: "name", Type: "text"},
				{Name: "note", Type: "character varying(20)", Nullable: true},
				{Name: "price", Type: "numeric(10,2)", Default: ptr("0")},
				{Name: "state", Type: "shop.state", Nullable: true, EnumValues: []string{"new", "old"}},
				{Name: "qty", Type: "shop.posint", BaseType: "integer", Nullable: true},
				{Name: "attrs", Type: "jsonb"},
				{Name: "tags", Type: "text[]", Nullable: true},
				{Name: "valid", Type: "tstzrange", Nullable: true},
				{Name: "Odd name", Type: "timestamp(3) with time zone", Nullable: true},
			},
		}, {
			QualifiedName: q("labels"), Kind: snapshot.KindTable, PrimaryKey: []string{"item_id"},
			Insertable: true, Updatable: true, Deletable: true,
			Columns: []snapshot.Column{
				{Name: "item_id", Type: "bigint"},
				{Name: "text", Type: "text"},
			},
		}, {
			QualifiedName: q("lines"), Kind: snapshot.KindTable, PrimaryKey: []string{"id"},
			Insertable: true, Updatable: true, Deletable: true,
			Columns: []snapshot.Column{
				{Name: "id", Type: "integer", Default: ptr("nextval('shop.lines_id_seq'::regclass)")},
				{Name: "item_id", Type: "bigint"},
			},
		}, {
			QualifiedName: q("shouted"), Kind: snapshot.KindView, Insertable: true, Updatable: true,
			Columns: []snapshot.Column{{Name: "id", Type: "bigint", Nullable: true}, {Name: "loud", Type: "text", Nullable: true, ReadOnly: true}},
		}, {
			QualifiedName: q("totals"), Kind: snapshot.KindView,
			Columns: []snapshot.Column{{Name: "item_id", Type: "bigint", Nullable: true}, {Name: "n", Type: "bigint", Nullable: true}},
		}},
		Relationships: []snapshot.Relationship{
			{Table: q("lines"), ForeignTable: q("items"), Cardinality: snapshot.ManyToOne, Constraint: "lines_item_id_fkey",
				Columns: []snapshot.ColumnPair{{Column: "item_id", ForeignColumn: "id"}}, Referencing: true},
			{Table: q("items"), ForeignTable: q("lines"), Cardinality: snapshot.OneToMany, Constraint: "lines_item_id_fkey",
				Columns: []snapshot.ColumnPair{{Column: "id", ForeignColumn: "item_id"}}},
			{Table: q("labels"), ForeignTable: q("items"), Cardinality: snapshot.OneToOne, Constraint: "labels_item_fk",
				Columns: []snapshot.ColumnPair{{Column: "item_id", ForeignColumn: "id"}}, Referencing: true},
			{Table: q("items"), ForeignTable: q("labels"), Cardinality: snapshot.OneToOne, Constraint: "labels_item_fk",
				Columns: []snapshot.ColumnPair{{Column: "id", ForeignColumn: "item_id"}}},
		},
		Functions: []snapshot.Function{
			{QualifiedName: q("cheapest"), ReturnType: q("items"), Returns: snapshot.ReturnsSetOfComposite, Rows: 1000,
				Arguments: []snapshot.Argument{{Name: "n", Type: "integer", Mode: snapshot.ArgIn, HasDefault: true}}},
			{QualifiedName: q("total"), ReturnType: snapshot.QualifiedName{Schema: "pg_catalog", Name: "numeric"}, Returns: snapshot.ReturnsScalar,
				Arguments: []snapshot.Argument{{Name: "ids", Type: "bigint[]", Mode: snapshot.ArgVariadic}}},
			{QualifiedName: q("total"), ReturnType: snapshot.QualifiedName{Schema: "pg_catalog", Name: "numeric"}, Returns: snapshot.ReturnsScalar,
				Arguments: []snapshot.Argument{{Name: "state", Type: "shop.state", Mode: snapshot.ArgIn}}},
			{QualifiedName: q("states"), ReturnType: q("state"), Returns: snapshot.ReturnsSetOfScalar, Rows: 1000},
			{QualifiedName: q("report"), ReturnType: snapshot.QualifiedName{Schema: "pg_catalog", Name: "record"}, Returns: snapshot.ReturnsSetOfComposite, Rows: 1000,
				Arguments: []snapshot.Argument{{Name: "day", Type: "date", Mode: snapshot.ArgIn}, {Name: "n", Type: "bigint", Mode: snapshot.ArgTable}, {Name: "what", Type: "text", Mode: snapshot.ArgTable}}},
			{QualifiedName: q("positional"), ReturnType: snapshot.QualifiedName{Schema: "pg_catalog", Name: "int4"}, Returns: snapshot.ReturnsScalar,
				Arguments: []snapshot.Argument{{Type: "integer", Mode: snapshot.ArgIn}}},
			{QualifiedName: q("nothing"), ReturnType: snapshot.QualifiedName{Schema: "pg_catalog", Name: "void"}, Returns: snapshot.ReturnsVoid},
			{QualifiedName: q("box"), ReturnType: q("dims"), Returns: snapshot.ReturnsComposite},
			{QualifiedName: q("sized"), ReturnType: snapshot.QualifiedName{Schema: "pg_catalog", Name: "text"}, Returns: snapshot.ReturnsScalar,
				Arguments: []snapshot.Argument{{Name: "sz", Type: "shop.size", Mode: snapshot.ArgIn}}},
			{QualifiedName: q("pick"), ReturnType: snapshot.QualifiedName{Schema: "pg_catalog", Name: "text"}, Returns: snapshot.ReturnsScalar,
				Arguments: []snapshot.Argument{{Name: "x", Type: "integer", Mode: snapshot.ArgIn}}},
			{QualifiedName: q("pick"), ReturnType: snapshot.QualifiedName{Schema: "pg_catalog", Name: "text"}, Returns: snapshot.ReturnsScalar,
				Arguments: []snapshot.Argument{{Name: "x", Type: "text", Mode: snapshot.ArgIn}}},
			{QualifiedName: q("page"), ReturnType: q("text/html"), Returns: snapshot.ReturnsScalar,
				Media: &snapshot.MediaDomain{Type: "text/html"}},
		},
		Roles:   []snapshot.Role{{Name: "reader", Inherit: true}},
		Domains: []snapshot.Domain{{QualifiedName: q("posint"), Type: "shop.posint", BaseType: "integer"}},
		Types: []snapshot.UserType{
			{QualifiedName: q("dims"), Attributes: []snapshot.Attribute{{Name: "w", Type: "integer"}, {Name: "h", Type: "shop.posint"}}},
			{QualifiedName: q("size"), Labels: []string{"s", "m", "l"}},
		},
	}
	snap, err := snapshot.New(snapshot.Header{Schemas: []string{"shop"}}, c)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// section returns the lines of out from the one equal to start (after
// trimming) to the next line closing it at its indentation, trimmed.
func section(t *testing.T, out, start string) []string {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != start {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " "))
		var got []string
		for _, m := range lines[i+1:] {
			if len(m)-len(strings.TrimLeft(m, " ")) == indent {
				return got
			}
			got = append(got, strings.TrimSpace(m))
		}
	}
	t.Fatalf("no section %q in\n%s", start, out)
	return nil
}

func generate(t *testing.T, snap *snapshot.Snapshot, opts Options) string {
	t.Helper()
	out, err := Generate(snap, opts)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestColumns checks Row, Insert and Update of a table: every column's
// type as Supabase's generator maps it, null where the column holds it,
// required on insert only without null, default or generation, and a
// generated column never written.
func TestColumns(t *testing.T) {
	out := generate(t, shop(t), Options{})
	for _, c := range []struct {
		section string
		want    []string
	}{
		{"Row: {", []string{
			`"Odd name": string | null`, "attrs: NonNullable<Json>", "id: number", "name: string",
			"note: string | null", "price: number", "qty: number | null",
			`state: Database["shop"]["Enums"]["state"] | null`, "tags: string[] | null", "valid: unknown",
		}},
		{"Insert: {", []string{
			`"Odd name"?: string | null`, "attrs: NonNullable<Json>", "id?: never", "name: string",
			"note?: string | null", "price?: number", "qty?: number | null",
			`state?: Database["shop"]["Enums"]["state"] | null`, "tags?: string[] | null", "valid?: unknown",
		}},
		{"Update: {", []string{
			`"Odd name"?: string | null`, "attrs?: NonNullable<Json>", "id?: never", "name?: string",
			"note?: string | null", "price?: number", "qty?: number | null",
			`state?: Database["shop"]["Enums"]["state"] | null`, "tags?: string[] | null", "valid?: unknown",
		}},
	} {
		if got := section(t, out, c.section); !slices.Equal(got, c.want) {
			t.Errorf("items %s\n got %q\nwant %q", c.section, got, c.want)
		}
	}
	// An enum no column uses is known as a type of the schema.
	if got, want := section(t, out, "Enums: {"), []string{`size: "s" | "m" | "l"`, `state: "new" | "old"`}; !slices.Equal(got, want) {
		t.Errorf("Enums: %q, want %q", got, want)
	}
	// A composite type's attributes, in order, each nullable.
	if got, want := section(t, out, "CompositeTypes: {"), []string{"dims: {", "w: number | null", "h: number | null", "}"}; !slices.Equal(got, want) {
		t.Errorf("CompositeTypes: %q, want %q", got, want)
	}
	// A view's column no write reaches is never written.
	if got, want := section(t, out, "shouted: {"), []string{"Row: {", "id: number | null", "loud: string | null", "}",
		"Insert: {", "id?: number | null", "loud?: never", "}", "Update: {", "id?: number | null", "loud?: never", "}",
		"Relationships: []"}; !slices.Equal(got, want) {
		t.Errorf("shouted: %q, want %q", got, want)
	}
	// A view that takes no writes has no Insert or Update.
	if got, want := section(t, out, "totals: {"), []string{"Row: {", "item_id: number | null", "n: number | null", "}", "Relationships: []"}; !slices.Equal(got, want) {
		t.Errorf("totals: %q, want %q", got, want)
	}
}

// TestRelationships checks that a relation lists the foreign keys it
// holds, one-to-one ones on the side holding the key only.
func TestRelationships(t *testing.T) {
	out := generate(t, shop(t), Options{})
	for _, c := range []struct {
		relation string
		want     string
	}{
		{"lines: {", `foreignKeyName: "lines_item_id_fkey" columns: ["item_id"] isOneToOne: false referencedRelation: "items" referencedColumns: ["id"]`},
		{"labels: {", `foreignKeyName: "labels_item_fk" columns: ["item_id"] isOneToOne: true referencedRelation: "items" referencedColumns: ["id"]`},
		{"items: {", ``},
	} {
		rel := section(t, out, c.relation)
		i := slices.IndexFunc(rel, func(l string) bool { return strings.HasPrefix(l, "Relationships:") })
		got := strings.Join(rel[i+1:], " ")
		got = strings.TrimSuffix(strings.TrimPrefix(got, "{ "), " }, ]")
		if c.want == "" && rel[i] != "Relationships: []" || c.want != "" && got != c.want {
			t.Errorf("%s relationships %q, want %q", c.relation, rel[i:], c.want)
		}
	}
}

// TestFunctions checks arguments (named, defaulted, variadic, overloads,
// an unnamed one left out as rpc() cannot name it) and returns (a
// relation's rows with SetofOptions, a composite type, a set of an enum,
// TABLE columns, void, a media type's body, a type error for overloads a
// call cannot choose between).
func TestFunctions(t *testing.T) {
	got := section(t, generate(t, shop(t), Options{}), "Functions: {")
	want := []string{
		"box: {", "Args: Record<PropertyKey, never>", `Returns: Database["shop"]["CompositeTypes"]["dims"]`,
		`SetofOptions: { from: "*"; to: "dims"; isOneToOne: true; isSetofReturn: false }`, "}",
		"cheapest: {",
		"Args: { n?: number }",
		`Returns: ({ "Odd name": string | null; attrs: NonNullable<Json>; id: number; name: string; note: string | null; price: number; qty: number | null; state: Database["shop"]["Enums"]["state"] | null; tags: string[] | null; valid: unknown })[]`,
		`SetofOptions: { from: "*"; to: "items"; isOneToOne: false; isSetofReturn: true }`,
		"}",
		"nothing: {", "Args: Record<PropertyKey, never>", "Returns: undefined", "}",
		"page: {", "Args: Record<PropertyKey, never>", "Returns: unknown", "}",
		"pick:",
		"| {", "Args: { x: number }", `Returns: { error: true } & "svc-serve cannot choose between the overloads of shop.pick taking arguments (x): rename the arguments or the functions"`, "}",
		"| {", "Args: { x: string }", `Returns: { error: true } & "svc-serve cannot choose between the overloads of shop.pick taking arguments (x): rename the arguments or the functions"`, "}",
		"report: {", "Args: { day: string }", "Returns: { n: number; what: string }[]", "}",
		"sized: {", `Args: { sz: Database["shop"]["Enums"]["size"] }`, "Returns: string", "}",
		"states: {", "Args: Record<PropertyKey, never>", `Returns: Database["shop"]["Enums"]["state"][]`, "}",
		"total:",
		"| {", "Args: { ids: number[] }", "Returns: number", "}",
		"| {", `Args: { state: Database["shop"]["Enums"]["state"] }`, "Returns: number", "}",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Functions\n got %q\nwant %q", got, want)
	}
}

// TestRole checks that a role's types hold only what it may use: the
// table it may read, with Insert and Update never, as it may not write;
// no function, as it may execute none.
func TestRole(t *testing.T) {
	out := generate(t, shop(t), Options{Role: "reader"})
	tables := section(t, out, "Tables: {")
	if !slices.Contains(tables, "items: {") || slices.Contains(tables, "lines: {") {
		t.Errorf("reader's tables: %q; want items only", tables)
	}
	if !slices.Contains(tables, "Insert: never") || !slices.Contains(tables, "Update: never") {
		t.Errorf("reader's items: %q; want Insert and Update never", tables)
	}
	// The relationship to lines is gone with lines.
	if !slices.Contains(tables, "Relationships: []") {
		t.Errorf("reader's items: %q; want no relationships", tables)
	}
	if got := section(t, out, "Functions: {"); !slices.Equal(got, []string{"[_ in never]: never"}) {
		t.Errorf("reader's functions: %q", got)
	}
	if _, err := Generate(shop(t), Options{Role: "nobody"}); err == nil {
		t.Error("an unknown role: no error")
	}
	if _, err := Generate(shop(t), Options{Schemas: []string{"public"}}); err == nil {
		t.Error("a schema the snapshot lacks: no error")
	}
}

// TestDeterministic checks that the output does not depend on the order
// the snapshot lists its objects in, and names its fingerprint.
func TestDeterministic(t *testing.T) {
	want := generate(t, shop(t), Options{})
	for i := range 20 {
		snap := shop(t)
		c := snap.Content
		r := rand.New(rand.NewPCG(uint64(i), 57))
		r.Shuffle(len(c.Relations), func(i, j int) { c.Relations[i], c.Relations[j] = c.Relations[j], c.Relations[i] })
		r.Shuffle(len(c.Functions), func(i, j int) { c.Functions[i], c.Functions[j] = c.Functions[j], c.Functions[i] })
		r.Shuffle(len(c.Relationships), func(i, j int) {
			c.Relationships[i], c.Relationships[j] = c.Relationships[j], c.Relationships[i]
		})
		for k := range c.Relations {
			cols := c.Relations[k].Columns
			r.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
		}
		shuffled, err := snapshot.New(snapshot.Header{Schemas: []string{"shop"}}, c)
		if err != nil {
			t.Fatal(err)
		}
		if got := generate(t, shuffled, Options{}); strings.SplitN(got, "\n", 2)[1] != strings.SplitN(want, "\n", 2)[1] {
			t.Fatalf("order %d gives other types:\n%s\nwant\n%s", i, got, want)
		}
	}
	if !strings.HasPrefix(want, "// Generated by svc-introspect types typescript from snapshot "+shop(t).Header.Fingerprint+".") {
		t.Errorf("header: %.120s", want)
	}
}

// TestParseQualified checks the reading of format_type's names.
func TestParseQualified(t *testing.T) {
	for in, want := range map[string]snapshot.QualifiedName{
		"api.color":           {Schema: "api", Name: "color"},
		`api."Odd name"`:      {Schema: "api", Name: "Odd name"},
		`"my.schema"."a""b"`:  {Schema: "my.schema", Name: `a"b`},
		"integer":             {},
		`"char"`:              {},
		`api."unterminated`:   {},
		"a.b.c":               {},
		"timestamp with zone": {},
	} {
		got, ok := parseQualified(in)
		if got != want || ok != (want != snapshot.QualifiedName{}) {
			t.Errorf("parseQualified(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
}

// TestDefaultSchema checks that the helper types' bare names look in the
// first schema written, svc-serve's default, while Database lists the
// schemas sorted.
func TestDefaultSchema(t *testing.T) {
	snap, err := snapshot.New(snapshot.Header{Schemas: []string{"shop", "audit"}}, shop(t).Content)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		schemas []string
		want    string
	}{
		{nil, `type DefaultSchema = "shop"`},
		{[]string{"audit", "shop"}, `type DefaultSchema = "audit"`},
	} {
		out := generate(t, snap, Options{Schemas: c.schemas})
		if !strings.Contains(out, "\n"+c.want+"\n") {
			t.Errorf("schemas %v: no %q", c.schemas, c.want)
		}
		if a, s := strings.Index(out, "\n  audit: {"), strings.Index(out, "\n  shop: {"); a < 0 || s < a {
			t.Errorf("schemas %v: Database lists audit at %d, shop at %d; want both, sorted", c.schemas, a, s)
		}
	}
}
