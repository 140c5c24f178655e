package server_test

import (
	"os"
	"os/exec"
	"testing"
)

// jsClientDir holds the suite of the official PostgREST JavaScript client
// (@supabase/postgrest-js) and its npm dependencies.
const jsClientDir = "testdata/postgrest-js"

// TestPostgrestJS runs that suite (node --test) against SVC twice: under
// compat-names = postgrest with the client exactly as published, and
// under SVC's names with the client given a fetch wrapper that maps its
// vnd.pgrst media types to vnd.svc. Both servers expose schema js, whose
// tables the suite writes (postgrest_js_reset.sql refills them before
// each run), and allow explain().
func TestPostgrestJS(t *testing.T) {
	node := requireJSClient(t)
	for _, mode := range []string{"postgrest", "svc"} {
		t.Run(mode, func(t *testing.T) {
			runFixtureScript(t, "postgrest_js_reset.sql")
			settings := map[string]string{"db-schemas": "test,js", "db-plan-enabled": "true"}
			if mode != "svc" {
				settings["compat-names"] = mode
			}
			url := serverWith(t, settings)
			cmd := exec.CommandContext(t.Context(), node, "--test", "--test-reporter=spec")
			cmd.Dir = jsClientDir
			cmd.Env = append(os.Environ(), "SVC_URL="+url, "SVC_MODE="+mode, "NO_COLOR=1")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("node --test (%s names): %v\n%s", mode, err, out)
			}
			if testing.Verbose() {
				t.Logf("%s", out)
			}
		})
	}
}

// requireJSClient returns the node binary once the client is installed.
func requireJSClient(t *testing.T) string {
	t.Helper()
	return requireNodePackage(t, jsClientDir, "@supabase/postgrest-js")
}
