package server_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/snapshot/tstypes"
)

// tsTypesDir holds what the TypeScript types are tested with: TypeScript,
// the published postgrest-js and supabase-js, and Supabase's generator
// (postgres-meta) as npm packages, schema kinds (kinds.sql), and a program of typed queries
// (program.ts).
const tsTypesDir = "testdata/tstypes"

// loadKinds creates schema kinds in the fixture's database, lets web_anon
// read and write it, and drops it when the test ends.
func loadKinds(t *testing.T) {
	t.Helper()
	sql, err := os.ReadFile(filepath.Join(tsTypesDir, "kinds.sql"))
	if err != nil {
		t.Fatal(err)
	}
	grants := `grant usage on schema kinds to web_anon;
		grant select, insert, update on all tables in schema kinds to web_anon;
		grant usage on all sequences in schema kinds to web_anon;`
	if _, err := superConn(t).Exec(t.Context(), "drop schema if exists kinds cascade;\n"+string(sql)+grants); err != nil {
		t.Fatalf("kinds.sql: %v", err)
	}
	t.Cleanup(func() {
		if _, err := superConn(t).Exec(context.Background(), "drop schema kinds cascade"); err != nil {
			t.Error(err)
		}
	})
}

// typesServer loads schema kinds, resets schema js, and starts a server
// exposing both; it returns the server's URL and its snapshot.
func typesServer(t *testing.T) (string, *snapshot.Snapshot) {
	t.Helper()
	runFixtureScript(t, "postgrest_js_reset.sql")
	loadKinds(t)
	url, snaps := serverWithSnapshots(t, map[string]string{"db-schemas": "kinds,js"})
	return url, snaps.Current()
}

// tsProject writes a TypeScript project in a new directory: the types of
// snap for web_anon, the files of tsTypesDir named, and the worked example
// of docs/typescript.md. linkModules gives it its npm packages.
func tsProject(t *testing.T, snap *snapshot.Snapshot, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	types, err := tstypes.Generate(snap, tstypes.Options{Role: "web_anon"})
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("database.types.ts", types)
	write("package.json", []byte(`{"type": "module"}`))
	write("example.ts", []byte(docExample(t)))
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(tsTypesDir, f))
		if err != nil {
			t.Fatal(err)
		}
		write(f, data)
	}
	return dir
}

// linkModules makes dir's node_modules tsTypesDir's, or, given packages
// (name to installed directory), a directory of links to those.
func linkModules(t *testing.T, dir string, packages map[string]string) {
	t.Helper()
	link := func(target, name string) {
		t.Helper()
		abs, err := filepath.Abs(target)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, name); err != nil {
			t.Fatal(err)
		}
	}
	if packages == nil {
		link(filepath.Join(tsTypesDir, "node_modules"), filepath.Join(dir, "node_modules"))
	}
	for name, target := range packages {
		link(target, filepath.Join(dir, "node_modules", filepath.FromSlash(name)))
	}
}

// docExample is the worked example of docs/typescript.md: the code block
// that imports postgrest-js.
func docExample(t *testing.T) string {
	t.Helper()
	page, err := os.ReadFile("../docs/typescript.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(page), "\n")
	for i, l := range lines {
		if l != "    import { PostgrestClient } from '@supabase/postgrest-js'" {
			continue
		}
		var code []string
		for _, m := range lines[i:] {
			if m != "" && !strings.HasPrefix(m, "    ") {
				break
			}
			code = append(code, strings.TrimPrefix(m, "    "))
		}
		return strings.Join(code, "\n")
	}
	t.Fatal("docs/typescript.md: no code block imports postgrest-js")
	return ""
}

// tsc compiles the project in dir with tsc --strict (its tsconfig.json),
// failing the test with the compiler's messages.
func tsc(t *testing.T, node, dir string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), node, filepath.Join("node_modules", "typescript", "bin", "tsc"), "-p", ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		types, _ := os.ReadFile(filepath.Join(dir, "database.types.ts"))
		t.Fatalf("tsc --strict: %v\n%s\n-- database.types.ts:\n%s", err, out, types)
	}
}

// TestTypeScriptClient compiles program.ts, typed queries of the
// published postgrest-js (2.x, and the 1.x of the postgrest-js suite),
// the same through supabase-js
// (supabase-client.ts), and the example of docs/typescript.md against
// the types of schemas kinds and js with tsc --strict, then runs the
// program against svc-serve and compares the rows it got.
func TestTypeScriptClient(t *testing.T) {
	node := requireNodePackage(t, tsTypesDir, "@supabase/postgrest-js")
	requireNodePackage(t, tsTypesDir, "typescript")
	t.Run("postgrest-js 2", func(t *testing.T) {
		url, snap := typesServer(t)
		dir := tsProject(t, snap, "program.ts", "supabase-client.ts", "tsconfig.json")
		linkModules(t, dir, nil)
		tsc(t, node, dir)
		runProgram(t, node, dir, url)
	})
	// The 1.x client of the postgrest-js suite (its own npm directory):
	// the same program, without supabase-js, which takes 2.x.
	t.Run("postgrest-js 1", func(t *testing.T) {
		requireJSClient(t)
		url, snap := typesServer(t)
		dir := tsProject(t, snap, "program.ts")
		linkModules(t, dir, map[string]string{
			"typescript":             filepath.Join(tsTypesDir, "node_modules", "typescript"),
			"@supabase/postgrest-js": filepath.Join(jsClientDir, "node_modules", "@supabase", "postgrest-js"),
		})
		tsconfig, err := os.ReadFile(filepath.Join(tsTypesDir, "tsconfig.json"))
		if err != nil {
			t.Fatal(err)
		}
		v1 := strings.Replace(string(tsconfig), `, "supabase-client.ts"`, "", 1)
		if err := os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(v1), 0o600); err != nil {
			t.Fatal(err)
		}
		tsc(t, node, dir)
		runProgram(t, node, dir, url)
	})
}

// runProgram runs the compiled program.ts in dir against the server at
// url and compares what it prints with programResults.
func runProgram(t *testing.T, node, dir, url string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), node, filepath.Join("out", "program.js"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SVC_URL="+url, "NO_COLOR=1")
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if e, ok := err.(*exec.ExitError); ok {
			stderr = e.Stderr
		}
		t.Fatalf("node program.js: %v\n%s\n%s", err, out, stderr)
	}
	var got, want any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("program.js printed %s: %v", out, err)
	}
	if err := json.Unmarshal([]byte(programResults), &want); err != nil {
		t.Fatal(err)
	}
	if !jsonEqual(got, want) {
		t.Errorf("program.js got\n%s\nwant\n%s", out, programResults)
	}
}

// jsonEqual compares two decoded JSON values.
func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// programResults is what program.ts must print for the rows of kinds.sql
// and postgrest_js_reset.sql.
const programResults = `{
  "books": [
    {"title": "Dune", "pages": 412, "author": "Frank Herbert", "mood": "happy", "cover": "dune.png"},
    {"title": "Children of Dune", "pages": null, "author": "Frank Herbert", "mood": "happy", "cover": null},
    {"title": "The Dispossessed", "pages": 387, "author": "Ursula K. Le Guin", "mood": "ok", "cover": null}
  ],
  "written": [["Frank Herbert", 2], ["Ursula K. Le Guin", 1]],
  "happy": [{"name": "Frank Herbert", "initials": "F", "tags": [], "meta": {}}],
  "inserted": {"name": "Octavia E. Butler", "bio": null, "mood": "ok"},
  "updated": [{"title": "Children of Dune", "pages": 320}],
  "upserted": [{"id": 2, "label": "classic"}],
  "renamed": [{"title": "Dune Messiah"}],
  "rpc": {
    "pong": "pong", "sum": 6, "added": 2,
    "byAuthor": [{"title": "Dune"}, {"title": "Dune Messiah"}],
    "ranked": [{"pos": 1, "title": "Dune"}, {"pos": 2, "title": "Dune Messiah"}],
    "moods": ["sad", "ok", "happy"],
    "origin": {"x": 0, "y": 0, "label": "origin"},
    "louder": "high"
  },
  "js": {
    "todos": [
      {"slug": "milk", "list": {"name": "home", "kind": "personal"}},
      {"slug": "bins", "list": {"name": "home", "kind": "personal"}},
      {"slug": "report", "list": {"name": "work", "kind": "shared"}}
    ],
    "shared": [{"name": "work"}]
  }
}`

// TestTypeScriptFixtureSchemas writes the types of every schema of the
// end-to-end fixture (test and other, with media handlers, domains,
// partitions, composite types, ...) and of js, as web_anon may use them,
// and compiles a use of each with postgrest-js: each schema must type
// its queries (a schema postgrest-js does not recognise types them as
// any), and an insert into a table web_anon may only read must not
// compile.
func TestTypeScriptFixtureSchemas(t *testing.T) {
	node := requireNodePackage(t, tsTypesDir, "@supabase/postgrest-js")
	requireNodePackage(t, tsTypesDir, "typescript")
	runFixtureScript(t, "postgrest_js_reset.sql")
	_, snaps := serverWithSnapshots(t, map[string]string{"db-schemas": "test,other,js"})
	dir := tsProject(t, snaps.Current())
	linkModules(t, dir, nil)
	check := `import { PostgrestClient } from '@supabase/postgrest-js'
import type { Database } from './database.types'

type IsAny<T> = 0 extends 1 & T ? true : false
declare const db: PostgrestClient<Database>

const test = db.schema('test').from('books').select('title, year')
const other = db.schema('other').from('books').select('*')
const js = db.schema('js').from('todos').select('title, list:lists(name)')
export const typed: [IsAny<Awaited<typeof test>['data']>, IsAny<Awaited<typeof other>['data']>, IsAny<Awaited<typeof js>['data']>] =
  [false, false, false]
export async function titles(): Promise<string[]> {
  const { data } = await test
  return (data ?? []).map((b) => b.title)
}
// @ts-expect-error web_anon may read test.books, not insert into it
db.schema('test').from('books').insert({ id: 1, title: 'x' })
`
	if err := os.WriteFile(filepath.Join(dir, "check.ts"), []byte(check), 0o600); err != nil {
		t.Fatal(err)
	}
	tsconfig := `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "esnext",
		"moduleResolution": "bundler", "lib": ["es2022", "dom"], "types": [], "skipLibCheck": true},
		"files": ["database.types.ts", "check.ts"]}`
	if err := os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(tsconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	tsc(t, node, dir)
}
