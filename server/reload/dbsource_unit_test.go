package reload

import (
	"strings"
	"testing"

	"github.com/svc-dev/svc/sql/snapstore"
)

func TestDBSnapshotSchema(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value, schema string
		ok            bool
	}{
		{"db", snapstore.DefaultSchema, true},
		{"db:snaps", "snaps", true},
		{"db:", "", true},   // Load then says it names no schema
		{"./db", "", false}, // a file named db
		{"/etc/svc/api.msgpack", "", false},
		{"", "", false},
	} {
		schema, ok := DBSnapshotSchema(tc.value)
		if ok != tc.ok || ok && schema != tc.schema {
			t.Errorf("DBSnapshotSchema(%q) = %q, %v; want %q, %v", tc.value, schema, ok, tc.schema, tc.ok)
		}
	}
}

func TestMissingSchemasMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		missing, existing []string
		want              []string
	}{
		{[]string{"apii"}, []string{"api", "public"}, []string{`exposed schema "apii" does not exist`, `did you mean "api" for "apii"?`}},
		{[]string{"a", "zzz"}, []string{"public"}, []string{`exposed schemas "a", "zzz" do not exist`, "serving the others"}},
	} {
		got := MissingSchemasMessage(tc.missing, tc.existing)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("MissingSchemasMessage(%v, %v) = %q; want it to say %q", tc.missing, tc.existing, got, w)
			}
		}
	}
}
