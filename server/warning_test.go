package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

// TestLegacyNamesWarning: parameters that address aliased embeds by
// their relations' names (url-use-legacy-target-names, on by default) get
// PostgREST's deprecation Warning, naming the alias to use for each, on a
// read planned or kept, and on a write; naming the alias gets none.
func TestLegacyNamesWarning(t *testing.T) {
	base := fixture.urls[httpServers[0].value]
	warning := func(updates string) string {
		return "299 SVCv" + snapshot.SVCVersion + ` "Embedded resource was referenced by relation name even though it has an alias. ` +
			`This is deprecated and will stop working in a future release. Update ` + updates + ` in query string filters, orders or limits."`
	}
	for _, c := range []struct {
		method, target, want string
	}{
		{"GET", "/projects?select=id,the_tasks:tasks(name)&tasks.order=name&id=eq.1", warning("`tasks` to `the_tasks`")},
		// the same shape again, answered from the statements kept for it
		{"GET", "/projects?select=id,the_tasks:tasks(name)&tasks.order=name&id=eq.2", warning("`tasks` to `the_tasks`")},
		{"GET", "/projects?select=id,the_tasks:tasks(name)&the_tasks.order=name&id=eq.1", ""},
		{"GET", "/clients?select=id,p:projects(name,t:tasks(name))&projects.order=name&projects.tasks.limit=1&id=eq.1",
			warning("`projects` to `p`, `tasks` to `t`")},
		{"PATCH", "/w_parents?id=eq.-1&select=id,kids:w_children(name)&w_children.order=name", warning("`w_children` to `kids`")},
	} {
		req, err := http.NewRequestWithContext(t.Context(), c.method, base+c.target, strings.NewReader(`{"name":"none"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Prefer", "return=representation")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Values("Warning"); resp.StatusCode != http.StatusOK || strings.Join(got, "|") != c.want {
			t.Errorf("%s %s: %d, Warning %q; want 200, %q", c.method, c.target, resp.StatusCode, got, c.want)
		}
	}
}
