package reload

import (
	"strings"
	"testing"
)

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
