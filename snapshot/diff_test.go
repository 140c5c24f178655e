package snapshot

import (
	"strings"
	"testing"
	"time"
)

// diffBase is the schema each case changes: a table with a foreign key, a
// view, an enum column and two functions, one overloaded.
func diffBase() Content {
	c := sampleContent()
	c.Functions = c.Functions[:1] // the cases address functions by position
	c.Relations[0].Columns = append(c.Relations[0].Columns, Column{Name: "mood", Type: "api.mood", Nullable: true,
		EnumValues: []string{"happy", "sad"}})
	c.Relations[1].Insertable, c.Relations[1].Updatable, c.Relations[1].Deletable = true, true, true
	c.Relations[1].Columns = append(c.Relations[1].Columns,
		Column{Name: "title", Type: "text", Grants: []Grant{{Grantee: "web_anon", Privileges: []string{PrivSelect}}}})
	c.Relations = append(c.Relations, Relation{QualifiedName: QualifiedName{Schema: "api", Name: "titles"},
		Kind: KindView, Columns: []Column{{Name: "title", Type: "text", Nullable: true}}})
	c.Functions = append(c.Functions,
		Function{QualifiedName: QualifiedName{Schema: "api", Name: "add"}, Arguments: []Argument{
			{Name: "a", Type: "text", Mode: ArgIn}}, ReturnType: QualifiedName{Schema: "pg_catalog", Name: "text"},
			Returns: ReturnsScalar, Volatility: Immutable},
		Function{QualifiedName: QualifiedName{Schema: "api", Name: "search"}, Arguments: []Argument{
			{Name: "q", Type: "text", Mode: ArgIn}, {Name: "lim", Type: "integer", Mode: ArgIn, HasDefault: true}},
			ReturnType: QualifiedName{Schema: "api", Name: "books"}, Returns: ReturnsSetOfComposite, Volatility: Stable,
			Grants: []Grant{{Grantee: "web_anon", Privileges: []string{PrivExecute}}}})
	c.MediaHandlers = []MediaHandler{{Media: MediaDomain{Type: "text/plain"}, Aggregate: QualifiedName{Schema: "api", Name: "plain"}}}
	return c
}

func diffSnapshot(t *testing.T, c Content) *Snapshot {
	t.Helper()
	s, err := New(Header{CreatedAt: time.Now(), Schemas: []string{"api"}}, c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDiff changes the base schema one way per case and checks the
// changes reported, one line each: "!" marks a breaking one.
func TestDiff(t *testing.T) {
	t.Parallel()
	books, authors := 1, 0
	search := func(c *Content) *Function { return &c.Functions[2] }
	text := "''::text"
	cases := []struct {
		name   string
		change func(c *Content)
		want   []string
	}{
		{"unchanged", func(c *Content) {}, nil},
		{"relation added", func(c *Content) {
			c.Relations = append(c.Relations, Relation{QualifiedName: QualifiedName{Schema: "api", Name: "shelves"}, Kind: KindTable})
		}, []string{"  api.shelves: relation added (table)"}},
		{"relation removed, with its relationships", func(c *Content) {
			c.Relations = c.Relations[1:]
			c.Relationships = nil
		}, []string{
			"! api.authors: relation removed (was table); its route is gone",
			"! api.books -> api.authors (many-to-one via books_author_id_fkey): relationship removed; embedding along it fails",
		}},
		{"kind changed and writes lost", func(c *Content) {
			c.Relations[books].Kind = KindView
			c.Relations[books].Deletable = false
		}, []string{
			"  api.books: relation kind changed from table to view",
			"! api.books: writes changed from insert, update, delete to insert, update; delete no longer allowed",
		}},
		{"writes gained", func(c *Content) { c.Relations[2].Insertable = true },
			[]string{"  api.titles: writes changed from read only to insert"}},
		{"primary key changed", func(c *Content) { c.Relations[books].PrimaryKey = []string{"id", "author_id"} },
			[]string{"! api.books: primary key changed from (id) to (id, author_id); PUT, upserts and on_conflict on the old key no longer match"}},
		{"primary key added", func(c *Content) { c.Relations[2].PrimaryKey = []string{"title"} },
			[]string{"  api.titles: primary key changed from none to (title)"}},
		{"nullable column added", func(c *Content) {
			c.Relations[books].Columns = append(c.Relations[books].Columns, Column{Name: "isbn", Type: "text", Nullable: true})
		}, []string{"  api.books.isbn: column added (text, nullable)"}},
		{"required column added", func(c *Content) {
			c.Relations[books].Columns = append(c.Relations[books].Columns, Column{Name: "isbn", Type: "text"})
		}, []string{"! api.books.isbn: column added (text, not null); NOT NULL without a default: inserts must now supply it"}},
		{"required column added to a read-only view", func(c *Content) {
			c.Relations[2].Columns = append(c.Relations[2].Columns, Column{Name: "isbn", Type: "text"})
		}, []string{"  api.titles.isbn: column added (text, not null)"}},
		{"column with a default added", func(c *Content) {
			c.Relations[books].Columns = append(c.Relations[books].Columns, Column{Name: "isbn", Type: "text", Default: &text})
		}, []string{"  api.books.isbn: column added (text, not null, default ''::text)"}},
		{"column removed, with its grants", func(c *Content) { c.Relations[books].Columns = c.Relations[books].Columns[:2] },
			[]string{"! api.books.title: column removed (was text); select, filters and writes naming it fail"}},
		{"column retyped", func(c *Content) { c.Relations[books].Columns[2].Type = "character varying(80)" },
			[]string{"! api.books.title: column retyped from text to character varying(80); values read and written have another type"}},
		{"NOT NULL added without a default", func(c *Content) { c.Relations[books].Columns[1].Nullable = false },
			[]string{"! api.books.author_id: column nullability changed from nullable to not null; NOT NULL without a default: inserts must now supply it"}},
		{"NOT NULL added with a default", func(c *Content) {
			c.Relations[books].Columns[1].Nullable = false
			c.Relations[books].Columns[1].Default = &text
		}, []string{
			"  api.books.author_id: column default changed from no default to default ''::text",
			"  api.books.author_id: column nullability changed from nullable to not null",
		}},
		{"NOT NULL dropped", func(c *Content) { c.Relations[books].Columns[2].Nullable = true },
			[]string{"  api.books.title: column nullability changed from not null to nullable"}},
		{"default dropped from a NOT NULL column", func(c *Content) { c.Relations[books].Columns[0].Default = nil },
			[]string{"! api.books.id: column default changed from default nextval('books_id_seq'::regclass) to no default; NOT NULL without a default: inserts must now supply it"}},
		{"enum value added", func(c *Content) { c.Relations[authors].Columns[1].EnumValues = []string{"happy", "sad", "meh"} },
			[]string{"  api.authors.mood: column enum changed from happy,sad to happy,sad,meh"}},
		{"enum value removed", func(c *Content) { c.Relations[authors].Columns[1].EnumValues = []string{"happy"} },
			[]string{"! api.authors.mood: column enum changed from happy,sad to happy; values sad are no longer accepted"}},
		{"relationship added beside an existing one", func(c *Content) {
			c.Relationships = append(c.Relationships, Relationship{Table: c.Relations[books].QualifiedName,
				ForeignTable: c.Relations[authors].QualifiedName, Cardinality: ManyToOne, Constraint: "books_editor_fkey"})
		}, []string{"! api.books -> api.authors (many-to-one via books_editor_fkey): relationship added; embedding api.authors by name becomes ambiguous; callers must name the relationship"}},
		{"relationship added", func(c *Content) {
			c.Relationships = append(c.Relationships, Relationship{Table: c.Relations[books].QualifiedName,
				ForeignTable: c.Relations[2].QualifiedName, Cardinality: ManyToOne, Constraint: "books_title_fkey"})
		}, []string{"  api.books -> api.titles (many-to-one via books_title_fkey): relationship added"}},
		{"relation grant revoked and another added", func(c *Content) {
			c.Relations[authors].Grants = []Grant{{Grantee: "web_user", Privileges: []string{PrivSelect, PrivInsert}}}
		}, []string{
			"  api.authors: grant added INSERT to web_user",
			"  api.authors: grant added SELECT to web_user",
			"! api.authors: grant revoked SELECT to web_anon; requests as that role needing it are refused",
		}},
		{"column grant revoked", func(c *Content) { c.Relations[books].Columns[2].Grants = nil },
			[]string{"! api.books.title: grant revoked SELECT to web_anon; requests as that role needing it are refused"}},
		{"function added", func(c *Content) {
			c.Functions = append(c.Functions, Function{QualifiedName: QualifiedName{Schema: "api", Name: "ping"}, Returns: ReturnsVoid})
		}, []string{"  api.ping(): function added (returns void)"}},
		{"one overload removed", func(c *Content) { c.Functions = append(c.Functions[:1], c.Functions[2]) },
			[]string{"! api.add(text): function removed (was returns scalar pg_catalog.text); its route is gone"}},
		{"optional argument added", func(c *Content) {
			search(c).Arguments = append(search(c).Arguments, Argument{Name: "offs", Type: "integer", Mode: ArgIn, HasDefault: true})
		}, []string{"  api.search(text, integer): function signature changed from (q text, lim integer default) to (q text, lim integer default, offs integer default)"}},
		{"required argument added", func(c *Content) {
			search(c).Arguments = append(search(c).Arguments, Argument{Name: "offs", Type: "integer", Mode: ArgIn})
		}, []string{"! api.search(text, integer): function signature changed from (q text, lim integer default) to (q text, lim integer default, offs integer); required argument offs added"}},
		{"argument renamed and default lost", func(c *Content) {
			search(c).Arguments = []Argument{{Name: "query", Type: "text", Mode: ArgIn}, {Name: "lim", Type: "integer", Mode: ArgIn}}
		}, []string{"! api.search(text, integer): function signature changed from (q text, lim integer default) to (query text, lim integer); argument q removed, argument lim lost its default, required argument query added"}},
		{"argument retyped", func(c *Content) { search(c).Arguments[1].Type = "bigint" },
			[]string{"! api.search(text, integer): function signature changed from (q text, lim integer default) to (q text, lim bigint default); argument lim changed"}},
		{"return shape changed", func(c *Content) {
			search(c).Returns = ReturnsComposite
		}, []string{"! api.search(text, integer): function return changed from returns setof composite api.books to returns composite api.books; responses have another shape"}},
		{"output columns changed", func(c *Content) {
			search(c).Returns, search(c).ReturnsRecord = ReturnsSetOfComposite, true
			search(c).ReturnType = QualifiedName{Schema: "pg_catalog", Name: "record"}
			search(c).Arguments = append(search(c).Arguments, Argument{Name: "title", Type: "text", Mode: ArgTable})
		}, []string{"! api.search(text, integer): function return changed from returns setof composite api.books to returns setof composite pg_catalog.record (title text); responses have another shape"}},
		{"became volatile", func(c *Content) { search(c).Volatility = Volatile },
			[]string{"! api.search(text, integer): function volatility changed from stable to volatile; GET and HEAD may no longer call it"}},
		{"became immutable", func(c *Content) { search(c).Volatility = Immutable },
			[]string{"  api.search(text, integer): function volatility changed from stable to immutable"}},
		{"execute revoked", func(c *Content) { search(c).Grants = nil },
			[]string{"! api.search(text, integer): grant revoked EXECUTE to web_anon; requests as that role needing it are refused"}},
		{"computed field added", func(c *Content) {
			c.Relations[authors].ComputedFields = []ComputedField{{Function: QualifiedName{Schema: "api", Name: "initials"}, Type: "text"}}
		}, []string{"  api.authors.initials: computed field added (text)"}},
		{"computed field removed", func(c *Content) { c.Relations[books].ComputedFields = nil },
			[]string{"! api.books.blurb: computed field removed (was text); select, filters and order naming it fail"}},
		{"computed field retyped", func(c *Content) { c.Relations[books].ComputedFields[0].Type = "json" },
			[]string{"! api.books.blurb: computed field retyped from text to json; values read have another type"}},
		{"computed field moved to another schema of the search path", func(c *Content) {
			c.Relations[books].ComputedFields[0].Function.Schema = "public"
		}, nil},
		{"casts added", func(c *Content) {
			c.Casts = append(c.Casts,
				Cast{Source: "json", Target: "api.color", Function: QualifiedName{Schema: "api", Name: "color_parse"}},
				Cast{Source: "text", Target: "api.color", Function: QualifiedName{Schema: "api", Name: "color_text"}})
		}, []string{
			"! json -> api.color: cast added (api.color_parse); values of api.color in request bodies are read by api.color_parse",
			"! text -> api.color: cast added (api.color_text); filter values on api.color are read by api.color_text",
		}},
		{"cast removed", func(c *Content) { c.Casts = nil },
			[]string{"! api.color -> json: cast removed (was api.color_json); values of api.color are answered as json no longer by api.color_json"}},
		{"cast function changed", func(c *Content) { c.Casts[0].Function.Name = "color_hex" },
			[]string{"! api.color -> json: cast changed from api.color_json to api.color_hex; values of api.color are answered as json by another function"}},
		{"media handlers added", func(c *Content) {
			c.MediaHandlers = append(c.MediaHandlers,
				MediaHandler{Media: MediaDomain{Type: "text/csv"}, Aggregate: QualifiedName{Schema: "api", Name: "books_csv"}, Relation: QualifiedName{Schema: "api", Name: "books"}},
				MediaHandler{Media: MediaDomain{Type: "text/html"}, Aggregate: QualifiedName{Schema: "api", Name: "html"}},
				MediaHandler{Media: MediaDomain{Type: "text/plain"}, Aggregate: QualifiedName{Schema: "api", Name: "books_text"}, Relation: QualifiedName{Schema: "api", Name: "books"}})
		}, []string{
			"  any relation as text/html: media handler added (api.html)",
			"! api.books as text/csv: media handler added (api.books_csv); text/csv bodies are rendered by api.books_csv",
			"! api.books as text/plain: media handler added (api.books_text); text/plain bodies are rendered by api.books_text",
		}},
		{"media handler removed", func(c *Content) { c.MediaHandlers = nil },
			[]string{"! any relation as text/plain: media handler removed (was api.plain); requests accepting only text/plain are refused or answered by another handler"}},
		{"media handler changed", func(c *Content) { c.MediaHandlers[0].Aggregate.Name = "plain2" },
			[]string{"! any relation as text/plain: media handler changed from api.plain to api.plain2; text/plain bodies are rendered by another aggregate"}},
		{"domain checks and NOT NULL", func(c *Content) {
			c.Domains[0].Checks[0].Expr = "(VALUE > 1)"
			c.Domains[0].Checks = append(c.Domains[0].Checks, DomainCheck{Name: "small", Expr: "(VALUE < 9)", Validated: true})
			c.Domains[1].NotNull = false
		}, []string{
			"! api.posint posint_check: domain check changed from (VALUE > 0) to (VALUE > 1); values it accepted may be refused",
			"! api.posint small: domain check added ((VALUE < 9)); values it accepted may be refused",
			"  api.small: domain nullability changed from not null to nullable",
		}},
		{"domain check removed, NOT NULL added", func(c *Content) {
			c.Domains[0].Checks = nil
			c.Domains[0].NotNull = true
		}, []string{
			"! api.posint: domain nullability changed from nullable to not null; writes of null to it are refused",
			"  api.posint posint_check: domain check removed (was (VALUE > 0))",
		}},
		{"enum label and attribute added", func(c *Content) {
			c.Types[0].Labels = append(c.Types[0].Labels, "ok")
			c.Types[1].Attributes = append(c.Types[1].Attributes, Attribute{Name: "z", Type: "integer"})
		}, []string{
			"  api.mood: enum labels changed from sad, happy to sad, happy, ok",
			"  api.point: type attributes changed from x integer, y api.posint to x integer, y api.posint, z integer",
		}},
		{"enum label removed, attribute retyped", func(c *Content) {
			c.Types[0].Labels = []string{"sad"}
			c.Types[1].Attributes[1].Type = "text"
		}, []string{
			"! api.mood: enum labels changed from sad, happy to sad; values with a removed label are refused",
			"! api.point: type attributes changed from x integer, y api.posint to x integer, y text; values clients read lose or retype an attribute",
		}},
		{"column renamed: one line, not a removal and a required addition", func(c *Content) {
			c.Relations[books].Columns[2].Name = "label"
		}, []string{"! api.books.label: column renamed from title to label; likely a rename (the same type and position as title): " +
			"select, filters and writes naming title fail"}},
		{"column dropped and one of its type added at the end: no rename", func(c *Content) {
			cols := c.Relations[books].Columns
			added := cols[1]
			added.Name = "writer_id"
			c.Relations[books].Columns = append([]Column{cols[0], cols[2]}, added)
		}, []string{
			"! api.books.author_id: column removed (was integer); select, filters and writes naming it fail",
			"  api.books.writer_id: column added (integer, nullable)",
		}},
		{"column of another type at the old one's position: no rename", func(c *Content) {
			c.Relations[books].Columns[2] = Column{Name: "pages", Type: "integer", Nullable: true}
		}, []string{
			"  api.books.pages: column added (integer, nullable)",
			"! api.books.title: column removed (was text); select, filters and writes naming it fail",
		}},
		{"relation renamed", func(c *Content) { c.Relations[2].Name = "headings" },
			[]string{"! api.headings: relation renamed from api.titles to api.headings; likely a rename (the same kind and columns as api.titles): its old route is gone"}},
		{"types added and removed", func(c *Content) {
			c.Types = append(c.Types[1:], UserType{QualifiedName: QualifiedName{Schema: "api", Name: "status"}, Labels: []string{"open", "closed"}})
		}, []string{
			"  api.mood: type removed (was enum: sad, happy)",
			"  api.status: type added (enum: open, closed)",
		}},
		{"roles and comments are not API changes", func(c *Content) {
			c.Roles = nil
			c.Relations[books].Description = "Books."
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			changed := diffBase()
			tc.change(&changed)
			got := Diff(diffSnapshot(t, diffBase()), diffSnapshot(t, changed))
			var lines []string
			for _, c := range got {
				mark := " "
				if c.Breaking {
					mark = "!"
				}
				lines = append(lines, mark+" "+c.String())
			}
			if strings.Join(lines, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(tc.want, "\n"))
			}
			want := false
			for _, w := range tc.want {
				want = want || strings.HasPrefix(w, "!")
			}
			if AnyBreaking(got) != want {
				t.Errorf("AnyBreaking = %v, want %v", AnyBreaking(got), want)
			}
		})
	}
}

// TestDiffGrantFields checks the fields tools read from a grant change.
func TestDiffGrantFields(t *testing.T) {
	t.Parallel()
	changed := diffBase()
	changed.Relations[0].Grants = nil
	got := Diff(diffSnapshot(t, diffBase()), diffSnapshot(t, changed))
	want := Change{Kind: GrantRevoked, Object: "api.authors", Role: "web_anon", Privilege: PrivSelect, Breaking: true,
		Reason: "requests as that role needing it are refused"}
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
}
