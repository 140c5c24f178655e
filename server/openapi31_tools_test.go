package server_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// openAPI31 is the Accept header asking the root for OpenAPI 3.1.
const openAPI31 = "application/openapi+json;version=3.1"

// toolEnv is the environment the npm tools run in: no telemetry, no
// update check, so they need no network (Redocly's documented opt-outs).
func toolEnv() []string {
	return append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "NO_UPDATE_NOTIFIER=1")
}

// runTool runs node with args in dir, failing the test with the output
// when it fails.
func runTool(t *testing.T, node, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), node, args...)
	cmd.Dir = dir
	cmd.Env = toolEnv()
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if e, ok := err.(*exec.ExitError); ok {
			stderr = e.Stderr
		}
		t.Fatalf("node %s: %v\n%s\n%s", strings.Join(args, " "), err, out, stderr)
	}
	return out
}

// writeDoc stores doc in a new temporary directory and returns its path.
func writeDoc(t *testing.T, doc []byte) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(file, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// acceptedLintWarnings are the warnings of Redocly's recommended ruleset
// the 3.1 document is allowed, each with the reason it is accepted.
var acceptedLintWarnings = map[string]string{
	// The licence of an API is its owner's to state; the database does
	// not say it, so SVC cannot.
	"info-license": "no licence is known",
}

// lintProblem is one problem redocly lint --format json reports.
type lintProblem struct {
	RuleID   string `json:"ruleId"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Location []struct {
		Pointer string `json:"pointer"`
	} `json:"location"`
}

// TestOpenAPI31Lint lints the 3.1 document of the fixture schema (tables,
// views, functions, enums, domains, media type handlers) with Redocly's
// recommended ruleset: no error, and no warning but those accepted.
func TestOpenAPI31Lint(t *testing.T) {
	node := requireNodePackage(t, validatorDir, "@redocly/cli")
	for _, c := range []struct{ name, profile string }{{"test", ""}, {"other", "other"}} {
		t.Run(c.name, func(t *testing.T) {
			file := writeDoc(t, fetchRootAs(t, fixture.url, openAPI31, "", c.profile))
			cli := filepath.Join("node_modules", "@redocly", "cli", "bin", "cli.js")
			cmd := exec.CommandContext(t.Context(), node, cli, "lint", "--config", "redocly.yaml", "--format", "json", file)
			cmd.Dir = validatorDir
			cmd.Env = toolEnv()
			// lint exits 1 on errors; the report says which.
			out, runErr := cmd.Output()
			var report struct {
				Problems []lintProblem `json:"problems"`
			}
			if err := json.Unmarshal(out, &report); err != nil {
				t.Fatalf("redocly lint: %v (%v)\n%s", err, runErr, out)
			}
			for _, p := range report.Problems {
				if p.Severity == "warn" && acceptedLintWarnings[p.RuleID] != "" {
					continue
				}
				where := ""
				if len(p.Location) > 0 {
					where = p.Location[0].Pointer
				}
				t.Errorf("%s %s at %s: %s", p.Severity, p.RuleID, where, p.Message)
			}
			if runErr != nil && !t.Failed() {
				t.Errorf("redocly lint failed without a problem reported: %v", runErr)
			}
		})
	}
}

// clientResult is what client.ts prints.
type clientResult struct {
	Titles       []string `json:"titles"`
	Years        []int    `json:"years"`
	Inserted     []string `json:"inserted"`
	Sum          *int     `json:"sum"`
	InsertStatus int      `json:"insertStatus"`
}

// TestOpenAPI31TypeScriptClient generates TypeScript types from the 3.1
// document with openapi-typescript, compiles client.ts (openapi-fetch
// calls typed by them: a read with select and filters, an insert, a
// function call) with tsc --strict, and runs it against the server: it
// must get the rows it asked for.
func TestOpenAPI31TypeScriptClient(t *testing.T) {
	node := requireNodePackage(t, validatorDir, "openapi-typescript")
	for _, pkg := range []string{"openapi-fetch", "typescript"} {
		requireNodePackage(t, validatorDir, pkg)
	}
	dir := t.TempDir()
	modules, err := filepath.Abs(filepath.Join(validatorDir, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"client.ts", "tsconfig.json"} {
		data, err := os.ReadFile(filepath.Join(validatorDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	doc := writeDoc(t, fetchRootAs(t, fixture.url, openAPI31, "", ""))
	runTool(t, node, dir, filepath.Join("node_modules", "openapi-typescript", "bin", "cli.js"), doc, "-o", "schema.ts")
	runTool(t, node, dir, filepath.Join("node_modules", "typescript", "bin", "tsc"), "-p", ".")
	out := runTool(t, node, dir, "client.js", fixture.url)
	var got clientResult
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client.ts printed %s: %v", out, err)
	}
	want := fmt.Sprint([]string{"Dune", "The Left Hand of Darkness"}, []int{1965, 1969})
	if fmt.Sprint(got.Titles, got.Years) != want {
		t.Errorf("GET /books?year=lt.1970: %v %v, want %s", got.Titles, got.Years, want)
	}
	if got.InsertStatus != 201 || !slices.Equal(got.Inserted, []string{"from openapi-fetch"}) {
		t.Errorf("POST /rpc_log: %d %v", got.InsertStatus, got.Inserted)
	}
	if got.Sum == nil || *got.Sum != 5 {
		t.Errorf("POST /rpc/add: %v, want 5", got.Sum)
	}
}
