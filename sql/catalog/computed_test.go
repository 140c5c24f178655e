package catalog

import (
	"reflect"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

func TestComputedFields(t *testing.T) {
	t.Parallel()
	s := introspect(t, fixtureURI)
	field := func(schema, name, typ, base string) snapshot.ComputedField {
		return snapshot.ComputedField{Function: snapshot.QualifiedName{Schema: schema, Name: name}, Type: typ, BaseType: base}
	}
	tests := []struct {
		relation string
		want     []snapshot.ComputedField
	}{
		// Sorted by name. api.initials hides private.initials; the column
		// name hides api.name; aliases (a set), scaled (two arguments) and
		// hidden.secret (off the search path) are none.
		{"authors", []snapshot.ComputedField{
			field("api", "first_book", "api.books", "api.books"),
			field("api", "initials", "text", "text"),
			field("api", "shade", "api.color", "text"),
			field("private", "shout", "text", "text"),
		}},
		{"books", []snapshot.ComputedField{field("api", "tag_ids", "integer[]", "integer[]")}},
		{"book_list", []snapshot.ComputedField{field("api", "label_words", "tsvector", "tsvector")}},
		{"tags", nil},
	}
	for _, tc := range tests {
		rel := s.Relation(snapshot.QualifiedName{Schema: "api", Name: tc.relation})
		if rel == nil {
			t.Fatalf("relation api.%s missing", tc.relation)
		}
		if !reflect.DeepEqual(rel.ComputedFields, tc.want) {
			t.Errorf("api.%s computed fields\n got %+v\nwant %+v", tc.relation, rel.ComputedFields, tc.want)
		}
	}
	authors := s.Relation(snapshot.QualifiedName{Schema: "api", Name: "authors"})
	if f := s.ComputedField(authors, "shout"); f == nil || f.Function.Schema != "private" {
		t.Errorf("ComputedField(authors, shout) = %+v, want private.shout", f)
	}
}

// TestComputedFieldsWithoutExtraPath checks that a function in a schema
// off the search path is no computed field once that schema is not
// searched, and that the relation's own schema still counts.
func TestComputedFieldsWithoutExtraPath(t *testing.T) {
	t.Parallel()
	opts := fixtureOptions()
	opts.ExtraSearchPath = nil
	s, err := introspectOpts(fixtureURI, opts)
	if err != nil {
		t.Fatal(err)
	}
	authors := s.Relation(snapshot.QualifiedName{Schema: "api", Name: "authors"})
	var names []string
	for _, f := range authors.ComputedFields {
		names = append(names, f.Function.String())
	}
	if want := []string{"api.first_book", "api.initials", "api.shade"}; !reflect.DeepEqual(names, want) {
		t.Errorf("computed fields %v, want %v", names, want)
	}
}
