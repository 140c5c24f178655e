package catalog

import (
	"reflect"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

// TestTypes: the snapshot keeps the enums and composite types of the
// exposed schemas, with labels and attributes in order, and neither
// relations' row types nor another schema's types.
func TestTypes(t *testing.T) {
	t.Parallel()
	s := introspect(t, fixtureURI)
	want := []snapshot.UserType{
		{QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "mood"}, Labels: []string{"sad", "ok", "happy"}},
		{QualifiedName: snapshot.QualifiedName{Schema: "api", Name: "point"}, Attributes: []snapshot.Attribute{
			{Name: "x", Type: "integer"}, {Name: "label", Type: "character varying(10)"}, {Name: "tags", Type: "text[]"}}},
	}
	if !reflect.DeepEqual(s.Content.Types, want) {
		t.Errorf("types\n got %+v\nwant %+v", s.Content.Types, want)
	}
}
