package snapshot

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func sampleContent() Content {
	def := "nextval('books_id_seq'::regclass)"
	books := QualifiedName{Schema: "api", Name: "books"}
	authors := QualifiedName{Schema: "api", Name: "authors"}
	return Content{
		Relations: []Relation{
			{QualifiedName: authors, Kind: KindTable, Owner: "app",
				Columns:    []Column{{Name: "id", Type: "integer", BaseType: "integer", TypeSchema: "pg_catalog"}},
				PrimaryKey: []string{"id"}, UniqueKeys: []UniqueKey{{Name: "authors_pkey", Columns: []string{"id"}}},
				Insertable: true, Updatable: true, Deletable: true,
				Grants: []Grant{{Grantee: "web_anon", Privileges: []string{PrivSelect}}}},
			{QualifiedName: books, Kind: KindTable, Owner: "app",
				Columns: []Column{
					{Name: "id", Type: "integer", BaseType: "integer", TypeSchema: "pg_catalog", Default: &def},
					{Name: "author_id", Type: "integer", BaseType: "integer", TypeSchema: "pg_catalog", Nullable: true},
				},
				PrimaryKey: []string{"id"}, UniqueKeys: []UniqueKey{{Name: "books_pkey", Columns: []string{"id"}}},
				Grants:         []Grant{},
				ComputedFields: []ComputedField{{Function: QualifiedName{Schema: "api", Name: "blurb"}, Type: "text", BaseType: "text"}}},
		},
		Relationships: []Relationship{
			{Table: books, ForeignTable: authors, Cardinality: ManyToOne, Constraint: "books_author_id_fkey",
				Columns: []ColumnPair{{Column: "author_id", ForeignColumn: "id"}}, Referencing: true},
			{Table: authors, ForeignTable: books, Cardinality: OneToMany, Constraint: "books_author_id_fkey",
				Columns: []ColumnPair{{Column: "id", ForeignColumn: "author_id"}}},
		},
		Functions: []Function{
			{QualifiedName: QualifiedName{Schema: "api", Name: "add"}, Arguments: []Argument{{Name: "a", Type: "integer", Mode: ArgIn}},
				ReturnType: QualifiedName{Schema: "pg_catalog", Name: "int4"}, Returns: ReturnsScalar, Volatility: Immutable, Owner: "app",
				Grants: []Grant{{Grantee: "PUBLIC", Privileges: []string{PrivExecute}}}},
			{QualifiedName: QualifiedName{Schema: "api", Name: "cover"}, Arguments: []Argument{},
				ReturnType: QualifiedName{Schema: "api", Name: "image/png"}, Returns: ReturnsScalar, Volatility: Stable, Owner: "app",
				Grants: []Grant{}, Media: &MediaDomain{Type: "image/png", Send: QualifiedName{Schema: "pg_catalog", Name: "byteasend"}}},
		},
		Casts: []Cast{{Source: "api.color", Target: "json", Function: QualifiedName{Schema: "api", Name: "color_json"}}},
		Roles: []Role{{Name: "web_anon", Inherit: true}, {Name: "app", MemberOf: []string{"web_anon"}, Inherit: true}},
		MediaHandlers: []MediaHandler{
			{Media: MediaDomain{Type: "text/csv", Send: QualifiedName{Schema: "pg_catalog", Name: "textsend"}},
				Aggregate: QualifiedName{Schema: "api", Name: "books_csv"}, Relation: books},
			{Media: MediaDomain{Type: "*/*", Send: QualifiedName{Schema: "pg_catalog", Name: "byteasend"}},
				Aggregate: QualifiedName{Schema: "api", Name: "any_agg"}},
		},
		Domains: []Domain{
			{QualifiedName: QualifiedName{Schema: "api", Name: "posint"}, Type: "api.posint", BaseType: "integer",
				Checks: []DomainCheck{{Name: "posint_check", Expr: "(VALUE > 0)", Validated: true}}},
			{QualifiedName: QualifiedName{Schema: "api", Name: "small"}, Type: "api.small", BaseType: "api.posint", NotNull: true},
		},
		Types: []UserType{
			{QualifiedName: QualifiedName{Schema: "api", Name: "mood"}, Labels: []string{"sad", "happy"}},
			{QualifiedName: QualifiedName{Schema: "api", Name: "point"},
				Attributes: []Attribute{{Name: "x", Type: "integer"}, {Name: "y", Type: "api.posint"}}},
		},
	}
}

func sampleSnapshot(t *testing.T) *Snapshot {
	t.Helper()
	s, err := New(Header{GeneratorVersion: SVCVersion, CreatedAt: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC),
		PGVersion: "15.18", PGVersionNum: 150018, Schemas: []string{"api"}, ExtraSearchPath: []string{"public"}}, sampleContent())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func encoded(t *testing.T, s *Snapshot) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, s); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	s := sampleSnapshot(t)
	got, err := Decode(bytes.NewReader(encoded(t, s)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Header, s.Header) {
		t.Errorf("header:\n got %+v\nwant %+v", got.Header, s.Header)
	}
	if !reflect.DeepEqual(got.Content, s.Content) {
		t.Errorf("content:\n got %+v\nwant %+v", got.Content, s.Content)
	}
	if len(s.Header.Fingerprint) != 64 {
		t.Errorf("fingerprint %q is not a hex sha256", s.Header.Fingerprint)
	}
}

func TestFingerprintFollowsContent(t *testing.T) {
	base := sampleSnapshot(t).Header.Fingerprint
	if again := sampleSnapshot(t).Header.Fingerprint; again != base {
		t.Fatalf("same content, different fingerprints: %s vs %s", base, again)
	}
	changes := map[string]func(c *Content){
		"relation": func(c *Content) { c.Relations[0].Kind = KindView },
		"column":   func(c *Content) { c.Relations[1].Columns[1].Nullable = false },
		"key": func(c *Content) {
			c.Relations[1].UniqueKeys = append(c.Relations[1].UniqueKeys, UniqueKey{Name: "u", Columns: []string{"author_id"}})
		},
		"function": func(c *Content) { c.Functions[0].Volatility = Volatile },
		"grant": func(c *Content) {
			c.Relations[0].Grants[0].Privileges = append(c.Relations[0].Grants[0].Privileges, PrivInsert)
		},
		"role":           func(c *Content) { c.Roles[0].Settings = []string{"statement_timeout=1s"} },
		"computed field": func(c *Content) { c.Relations[1].ComputedFields[0].Type = "varchar" },
		"cast":           func(c *Content) { c.Casts[0].Function.Name = "color_hex" },
		"media handler":  func(c *Content) { c.MediaHandlers[1].Relation = QualifiedName{Schema: "api", Name: "authors"} },
		"function media": func(c *Content) { c.Functions[1].Media.Type = "image/jpeg" },
		"domain check":   func(c *Content) { c.Domains[0].Checks[0].Expr = "(VALUE > 1)" },
		"domain null":    func(c *Content) { c.Domains[1].NotNull = false },
		"enum label":     func(c *Content) { c.Types[0].Labels[1] = "glad" },
		"key side":       func(c *Content) { c.Relationships[0].Referencing = false },
		"read-only":      func(c *Content) { c.Relations[0].Columns[0].ReadOnly = true },
		"attribute":      func(c *Content) { c.Types[1].Attributes[1].Type = "integer" },
	}
	for name, change := range changes {
		c := sampleContent()
		change(&c)
		s, err := New(Header{}, c)
		if err != nil {
			t.Fatal(err)
		}
		if s.Header.Fingerprint == base {
			t.Errorf("changing the %s left the fingerprint unchanged", name)
		}
	}
}

func TestDecodeRefusesBadFiles(t *testing.T) {
	good := encoded(t, sampleSnapshot(t))
	future := bytes.Clone(good)
	binary.BigEndian.PutUint16(future[len(magic):], FormatVersion+1)
	// A snapshot written before domains were kept: its content has a
	// field fewer, so it is refused by version, not misread as a schema
	// whose domains have no checks.
	older := bytes.Clone(good)
	binary.BigEndian.PutUint16(older[len(magic):], FormatVersion-1)
	flipped := bytes.Clone(good)
	flipped[len(flipped)-3] ^= 0xff
	cases := []struct {
		name, want string
		data       []byte
	}{
		{"empty", "not an SVC snapshot", nil},
		{"json", "not an SVC snapshot", []byte(`{"relations": []}`)},
		{"future version", fmt.Sprintf("snapshot format version %d is not supported: this build reads version %d only", FormatVersion+1, FormatVersion), future},
		{"older version", fmt.Sprintf("snapshot format version %d is not supported: this build reads version %d only (regenerate it with a matching svc-introspect)", FormatVersion-1, FormatVersion), older},
		{"no version", "ends before its format version", good[:len(magic)+1]},
		{"truncated", "damaged snapshot", good[:len(good)-10]},
		{"altered", "damaged snapshot: content fingerprint", flipped},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".svcsnap")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadFile(path)
			if err == nil {
				t.Fatal("decoded a bad file without error")
			}
			if !strings.HasPrefix(err.Error(), "snapshot "+path+": ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q: want the file name and %q", err, tc.want)
			}
		})
	}
}

func TestWriteFileThenReadFile(t *testing.T) {
	s := sampleSnapshot(t)
	path := filepath.Join(t.TempDir(), "schema.svcsnap")
	n, err := WriteFile(path, s)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(len(encoded(t, s))); n != want {
		t.Errorf("WriteFile reported %d bytes, encoding is %d", n, want)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Header.Fingerprint != s.Header.Fingerprint {
		t.Errorf("fingerprint %s, want %s", got.Header.Fingerprint, s.Header.Fingerprint)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o644 {
		t.Errorf("snapshot file mode %v, want -rw-r--r--", info.Mode())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("WriteFile left %d files behind, want just the snapshot", len(entries))
	}
}

func TestIndexLookups(t *testing.T) {
	s, err := Decode(bytes.NewReader(encoded(t, sampleSnapshot(t))))
	if err != nil {
		t.Fatal(err)
	}
	books := s.Relation(QualifiedName{Schema: "api", Name: "books"})
	if books == nil || books.Name != "books" {
		t.Fatalf("Relation(api.books) = %v", books)
	}
	if s.Relation(QualifiedName{Schema: "other", Name: "books"}) != nil {
		t.Error("found api.books under schema other")
	}
	if c := s.Column(books, "author_id"); c == nil || !c.Nullable {
		t.Errorf("Column(books, author_id) = %+v", c)
	}
	if s.Column(books, "title") != nil {
		t.Error("found a column books does not have")
	}
	rels := s.RelationshipsFrom(QualifiedName{Schema: "api", Name: "authors"})
	if len(rels) != 1 || rels[0].Cardinality != OneToMany || rels[0].ForeignTable.Name != "books" {
		t.Errorf("RelationshipsFrom(api.authors) = %+v", rels)
	}
	if fs := s.Functions(QualifiedName{Schema: "api", Name: "add"}); len(fs) != 1 || fs[0].Returns != ReturnsScalar {
		t.Errorf("Functions(api.add) = %+v", fs)
	}
	if f := s.ComputedField(books, "blurb"); f == nil || f.Name() != "blurb" || f.Type != "text" {
		t.Errorf("ComputedField(books, blurb) = %+v", f)
	}
	if s.ComputedField(books, "author_id") != nil {
		t.Error("a column was found as a computed field")
	}
	if f := s.Representation("api.color", "json"); f == nil || f.Name != "color_json" {
		t.Errorf("Representation(api.color, json) = %v", f)
	}
	if f := s.Representation("json", "api.color"); f != nil {
		t.Errorf("Representation(json, api.color) = %v, want none (no such cast)", f)
	}
	if d := s.Domain("api.small"); d == nil || d.BaseType != "api.posint" || !d.NotNull {
		t.Errorf("Domain(api.small) = %+v", d)
	}
	if d := s.DomainNamed(QualifiedName{Schema: "api", Name: "posint"}); d == nil || len(d.Checks) != 1 {
		t.Errorf("DomainNamed(api.posint) = %+v", d)
	}
	if s.Domain("integer") != nil {
		t.Error("integer found as a domain")
	}
	if r := s.Role("app"); r == nil || !reflect.DeepEqual(r.MemberOf, []string{"web_anon"}) {
		t.Errorf("Role(app) = %+v", r)
	}
}
