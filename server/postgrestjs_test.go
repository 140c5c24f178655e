package server_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/apierr"
)

// jsClientDir holds the suite of the official PostgREST JavaScript client
// (@supabase/postgrest-js) and its npm dependencies.
const jsClientDir = "testdata/postgrest-js"

// TestPostgrestJS runs that suite (node --test) against SVC under each
// naming: compat-names = postgrest with the client exactly as published,
// and SVC's names with the client given a fetch wrapper that maps its
// vnd.pgrst media types to vnd.svc. Both servers expose schema js, whose
// tables the suite writes (postgrest_js_reset.sql refills them before
// each run), and allow explain() and aggregates.
//
// Each server takes the suite twice. In between, schema js is dropped and
// created again and the snapshot reloaded, as a migration that recreates
// objects under the same names would leave it: the second run meets
// pooled sessions that prepared the first run's statements on objects
// that no longer exist (issue 42).
func TestPostgrestJS(t *testing.T) {
	node := requireJSClient(t)
	for _, mode := range []string{"postgrest", "svc"} {
		t.Run(mode, func(t *testing.T) {
			runFixtureScript(t, "postgrest_js_reset.sql")
			url, reloadSnapshot := jsServer(t, mode)
			files := jsSuiteFiles(t)
			if !t.Run("first", func(t *testing.T) { runJSSuite(t, node, url, mode, files) }) {
				return
			}
			recreateJSSchema(t)
			reloadSnapshot()
			// errors.test.js's abortSignal test gives up mid-request, and
			// SVC closes the session that request ran on: only what the
			// files after it prepared reaches the second run, which must
			// then take those files before its own abort.
			slices.Reverse(files)
			t.Run("recreated", func(t *testing.T) { runJSSuite(t, node, url, mode, files) })
		})
	}
}

// jsServer starts the suite's server under mode's naming, and returns its
// base URL and a function that reloads its snapshot, returning once the
// new one is in force. SVC's naming runs in this process, and its
// snapshots are reloaded directly; another naming needs a process of its
// own, reloaded by NOTIFY as an operator would.
func jsServer(t *testing.T, mode string) (string, func()) {
	t.Helper()
	// One session: the second run must meet the session the first one
	// prepared its statements on, not one the pool happened to open.
	settings := map[string]string{"db-schemas": "test,js", "db-plan-enabled": "true", "db-aggregates-enabled": "true", "db-pool": "1"}
	if mode == "svc" {
		url, snaps := serverWithSnapshots(t, settings)
		return url, func() {
			if err := snaps.Reload(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
	}
	settings["compat-names"] = mode
	url, output := processOutputWith(t, settings)
	return url, func() {
		// A NOTIFY sent before LISTEN would be lost.
		waitOutput(t, output, `msg="listening for notifications"`)
		const loaded = `msg="schema snapshot loaded in `
		before := strings.Count(output.String(), loaded)
		if _, err := superConn(t).Exec(t.Context(), "select pg_notify($1, 'reload schema')", apierr.Namings[mode].Channel); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(15 * time.Second)
		for strings.Count(output.String(), loaded) == before {
			if time.Now().After(deadline) {
				t.Fatalf("svc-serve did not reload its snapshot:\n%s", output)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// jsSuiteFiles returns the names of the suite's test files, sorted.
func jsSuiteFiles(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(jsClientDir, "*.test.js"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no test files in %s: %v", jsClientDir, err)
	}
	for i, p := range paths {
		paths[i] = filepath.Base(p)
	}
	return paths
}

// runJSSuite runs the suite's files against the server at url under
// mode's naming, each as a subtest, in the order given. One file at a
// time, so that the session each request meets does not depend on the
// machine's cores; by a node process each, as node --test sorts the files
// it is given.
func runJSSuite(t *testing.T, node, url, mode string, files []string) {
	t.Helper()
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), node, "--test", "--test-reporter=spec", file)
			cmd.Dir = jsClientDir
			cmd.Env = append(os.Environ(), "SVC_URL="+url, "SVC_MODE="+mode, "NO_COLOR=1")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("node --test %s (%s names): %v\n%s", file, mode, err, out)
			}
			if testing.Verbose() {
				t.Logf("%s", out)
			}
		})
	}
}

// recreateJSSchema drops schema js and runs again the part of fixture.sql
// that creates it, then refills its tables, in one transaction as a
// migration would. It fails the test if an object of js kept its OID: a
// recreation that replaced objects in place would not leave sessions
// holding statements on dropped ones.
func recreateJSSchema(t *testing.T) {
	t.Helper()
	fixtureSQL, err := os.ReadFile("testdata/fixture.sql")
	if err != nil {
		t.Fatal(err)
	}
	_, create, ok := strings.Cut(string(fixtureSQL), "-- begin schema js\n")
	create, _, ok2 := strings.Cut(create, "-- end schema js\n")
	if !ok || !ok2 {
		t.Fatal("fixture.sql: no lines between -- begin schema js and -- end schema js")
	}
	reset, err := os.ReadFile("testdata/postgrest_js_reset.sql")
	if err != nil {
		t.Fatal(err)
	}
	before := jsOIDs(t)
	if _, err := superConn(t).Exec(t.Context(), "drop schema js cascade;\n"+create+string(reset)); err != nil {
		t.Fatalf("recreating schema js: %v", err)
	}
	after := jsOIDs(t)
	if len(after) != len(before) || slices.ContainsFunc(after, func(oid uint32) bool { return slices.Contains(before, oid) }) {
		t.Fatalf("schema js recreated with OIDs %v, had %v: want as many, all new", after, before)
	}
}

// jsOIDs returns the OIDs of schema js's relations, types (each table's
// row type among them) and functions.
func jsOIDs(t *testing.T) []uint32 {
	t.Helper()
	rows, err := superConn(t).Query(t.Context(), `
		select oid from pg_class where relnamespace = 'js'::regnamespace
		union all select oid from pg_type where typnamespace = 'js'::regnamespace
		union all select oid from pg_proc where pronamespace = 'js'::regnamespace`)
	if err != nil {
		t.Fatal(err)
	}
	var oids []uint32
	for rows.Next() {
		var oid uint32
		if err := rows.Scan(&oid); err != nil {
			t.Fatal(err)
		}
		oids = append(oids, oid)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return oids
}

// requireJSClient returns the node binary once the client is installed.
func requireJSClient(t *testing.T) string {
	t.Helper()
	return requireNodePackage(t, jsClientDir, "@supabase/postgrest-js")
}
