package server_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/snapshot/tstypes"
)

// supabaseTypes runs Supabase's generator (postgres-meta, one shot, as
// the Supabase CLI runs it) on the fixture's database for schemas, with
// one-to-one detection on, and returns the module it prints.
func supabaseTypes(t *testing.T, node, schemas string) []byte {
	t.Helper()
	server := filepath.Join("node_modules", "@supabase", "postgres-meta", "dist", "server", "server.js")
	cmd := exec.CommandContext(t.Context(), node, server)
	cmd.Dir = tsTypesDir
	cmd.Env = append(os.Environ(), "PG_META_DB_URL="+fixture.superURI, "PG_META_GENERATE_TYPES=typescript",
		"PG_META_GENERATE_TYPES_INCLUDED_SCHEMAS="+schemas, "PG_META_GENERATE_TYPES_DETECT_ONE_TO_ONE_RELATIONSHIPS=true")
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if e, ok := err.(*exec.ExitError); ok {
			stderr = e.Stderr
		}
		t.Fatalf("postgres-meta: %v\n%s\n%s", err, out, stderr)
	}
	return out
}

// supabaseDifferences are the parts of the types that differ from what
// Supabase's generator writes for schemas js and kinds, each with the
// words docs/typescript.md explains it with. Any other difference fails
// the comparison, and so does one of these that no longer differs.
var supabaseDifferences = map[string]string{
	// A function of a row returning a relation's rows is a computed
	// relationship, embedded with parentheses; svc-serve does not select
	// it as a column, so Row does not list it.
	"kinds.Tables.authors.Row": "functions of a row that return a relation's rows",
	// Which makes the Args of the functions taking that Row differ too,
	// and the helper type naming it.
	"kinds.Tables<authors>":         "functions of a row that return a relation's rows",
	"kinds.Functions.initials.Args": "functions of a row that return a relation's rows",
	"kinds.Functions.written.Args":  "functions of a row that return a relation's rows",
	// Domains of functions' arguments and results are their base types.
	"kinds.Functions.scored.Args":    "domains of function arguments",
	"kinds.Functions.scored.Returns": "domains of function arguments",
	// SetofOptions.from names the relation as postgrest-js names it,
	// without its schema.
	"kinds.Functions.written.SetofOptions": "`SetofOptions.from`",
}

// TestTypesMatchSupabase compares the types svc-introspect writes for
// schemas js (the postgrest-js suite's) and kinds with those of Supabase's
// generator for the same database, structurally, with tsc: per schema the
// names of tables, views, functions and enums; per relation Row, Insert,
// Update, the set of Relationships and the helper types (Tables<>,
// TablesInsert<>, TablesUpdate<>); per function Args, Returns and
// SetofOptions; per enum its labels, and Enums<>; per composite type its
// attributes, and CompositeTypes<>. Only supabaseDifferences may differ.
func TestTypesMatchSupabase(t *testing.T) {
	node := requireNodePackage(t, tsTypesDir, "@supabase/postgres-meta")
	requireNodePackage(t, tsTypesDir, "typescript")
	_, snap := typesServer(t)
	differ, report := supabaseDiff(t, node, snap, []string{"js", "kinds"})
	for name := range differ {
		if _, known := supabaseDifferences[name]; !known {
			t.Errorf("%s differs from Supabase's generator", name)
		}
	}
	page, err := os.ReadFile("../docs/typescript.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, words := range supabaseDifferences {
		if !differ[name] {
			t.Errorf("%s no longer differs from Supabase's generator: take it out of supabaseDifferences and docs/typescript.md", name)
		}
		if !strings.Contains(string(page), words) {
			t.Errorf("docs/typescript.md does not explain why %s differs (%q)", name, words)
		}
	}
	if t.Failed() {
		t.Log(report)
	}
}

// supabaseDiff writes the types of snap's schemas and Supabase's for the
// fixture's database, compares them with tsc, and returns the names of
// the parts that differ (see comparisons), with tsc's messages and both
// modules for a failing test to show.
func supabaseDiff(t *testing.T, node string, snap *snapshot.Snapshot, schemas []string) (map[string]bool, string) {
	t.Helper()
	theirs := supabaseTypes(t, node, strings.Join(schemas, ","))
	ours, err := tstypes.Generate(snap, tstypes.Options{Schemas: schemas})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	checks, names := comparisons(snap, schemas)
	tsconfig := `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2022", "module": "esnext",
		"moduleResolution": "bundler", "types": [], "skipLibCheck": true},
		"files": ["ours.ts", "supabase.ts", "compare.ts"]}`
	for name, data := range map[string][]byte{"ours.ts": ours, "supabase.ts": theirs, "compare.ts": []byte(checks), "tsconfig.json": []byte(tsconfig)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	modules, err := filepath.Abs(filepath.Join(tsTypesDir, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, filepath.Join("node_modules", "typescript", "bin", "tsc"), "-p", ".")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	report := fmt.Sprintf("tsc:\n%s\n-- ours.ts:\n%s\n-- supabase.ts:\n%s", out, ours, theirs)
	differ := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^(\S+)\((\d+),\d+\): error`).FindAllStringSubmatch(string(out), -1) {
		line, _ := strconv.Atoi(m[2])
		if m[1] != "compare.ts" || names[line] == "" {
			t.Fatalf("tsc: an error outside the comparisons:\n%s", report)
		}
		differ[names[line]] = true
	}
	return differ, report
}

// comparisons writes compare.ts, one check a line, and returns it with
// the name of what each line compares.
func comparisons(snap *snapshot.Snapshot, schemas []string) (string, map[int]string) {
	var b strings.Builder
	names := map[int]string{}
	line := 1
	emit := func(s string) {
		b.WriteString(s + "\n")
		line++
	}
	check := func(name, ours, theirs string) {
		names[line] = name
		emit(fmt.Sprintf("same<%s, %s>(true)", ours, theirs))
	}
	emit(`import type { Database as O, Tables as OT, TablesInsert as OI, TablesUpdate as OU, Enums as OE, CompositeTypes as OC } from './ours'`)
	emit(`import type { Database as S, Tables as ST, TablesInsert as SI, TablesUpdate as SU, Enums as SE, CompositeTypes as SC } from './supabase'`)
	// Equal is TypeScript's identity of types: optional, null and never
	// all count.
	emit(`type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false`)
	emit(`declare function same<A, B>(ok: Equal<A, B>): void`)
	emit(`type Setof<F> = F extends { SetofOptions: infer O } ? O : undefined`)
	emit(`type Part<R, K extends string> = R extends { [k in K]: infer P } ? P : undefined`)
	// A call rpc() cannot make returns an error type, each generator's
	// message its own: the error is compared, not its words.
	emit(`type Ret<R> = R extends { error: true } ? { error: true } : R`)
	emit(`type Fn<S, F extends string> = S extends { Functions: infer Fs } ? F extends keyof Fs ? Fs[F] : "absent" : never`)
	for _, s := range schemas {
		q := strconv.Quote(s)
		for _, section := range []string{"Tables", "Views", "Functions", "Enums", "CompositeTypes"} {
			check(s+"."+section, fmt.Sprintf("keyof O[%s][%q]", q, section), fmt.Sprintf("keyof S[%s][%q]", q, section))
		}
		for _, r := range snap.Content.Relations {
			if r.Schema != s {
				continue
			}
			section := "Tables"
			if r.Kind == snapshot.KindView || r.Kind == snapshot.KindMaterializedView {
				section = "Views"
			}
			path := fmt.Sprintf("[%s][%q][%s]", q, section, strconv.Quote(r.Name))
			for _, part := range []string{"Row", "Insert", "Update"} {
				check(s+"."+section+"."+r.Name+"."+part, fmt.Sprintf("Part<O%s, %q>", path, part), fmt.Sprintf("Part<S%s, %q>", path, part))
			}
			// The helper types, by schema (Supabase's default schema is
			// public, which these have none of).
			opt := fmt.Sprintf("{ schema: %s }, %s", q, strconv.Quote(r.Name))
			check(s+".Tables<"+r.Name+">", "OT<"+opt+">", "ST<"+opt+">")
			if section == "Tables" {
				check(s+".TablesInsert<"+r.Name+">", "OI<"+opt+">", "SI<"+opt+">")
				check(s+".TablesUpdate<"+r.Name+">", "OU<"+opt+">", "SU<"+opt+">")
			}
			check(s+"."+section+"."+r.Name+".Relationships",
				fmt.Sprintf("O%s[\"Relationships\"][number]", path), fmt.Sprintf("S%s[\"Relationships\"][number]", path))
		}
		var fns []string
		for _, f := range snap.Content.Functions {
			if f.Schema == s && !slices.Contains(fns, f.Name) {
				fns = append(fns, f.Name)
			}
		}
		for _, f := range fns {
			// A function neither writes (rpc() cannot call it) is absent
			// from both; the names of Functions compare which are written.
			fn := func(db string) string { return fmt.Sprintf("Fn<%s[%s], %s>", db, q, strconv.Quote(f)) }
			check(s+".Functions."+f+".Args", "Part<"+fn("O")+`, "Args">`, "Part<"+fn("S")+`, "Args">`)
			check(s+".Functions."+f+".Returns", "Ret<Part<"+fn("O")+`, "Returns">>`, "Ret<Part<"+fn("S")+`, "Returns">>`)
			check(s+".Functions."+f+".SetofOptions", "Setof<"+fn("O")+">", "Setof<"+fn("S")+">")
		}
		for _, e := range enumNames(snap, s) {
			check(s+".Enums."+e, fmt.Sprintf("O[%s][\"Enums\"][%s]", q, strconv.Quote(e)), fmt.Sprintf("S[%s][\"Enums\"][%s]", q, strconv.Quote(e)))
			opt := fmt.Sprintf("{ schema: %s }, %s", q, strconv.Quote(e))
			check(s+".Enums<"+e+">", "OE<"+opt+">", "SE<"+opt+">")
		}
		for _, ty := range snap.Content.Types {
			if ty.Schema != s || ty.Attributes == nil {
				continue
			}
			n := strconv.Quote(ty.Name)
			check(s+".CompositeTypes."+ty.Name, fmt.Sprintf("O[%s][\"CompositeTypes\"][%s]", q, n), fmt.Sprintf("S[%s][\"CompositeTypes\"][%s]", q, n))
			opt := fmt.Sprintf("{ schema: %s }, %s", q, n)
			check(s+".CompositeTypes<"+ty.Name+">", "OC<"+opt+">", "SC<"+opt+">")
		}
	}
	return b.String(), names
}

// enumNames are the enums of schema s: those the snapshot keeps as types,
// and those its columns show.
func enumNames(snap *snapshot.Snapshot, s string) []string {
	var out []string
	for _, ty := range snap.Content.Types {
		if ty.Schema == s && ty.Attributes == nil && !slices.Contains(out, ty.Name) {
			out = append(out, ty.Name)
		}
	}
	for _, r := range snap.Content.Relations {
		for _, c := range r.Columns {
			if c.EnumValues != nil && c.TypeSchema == s {
				name := c.Type[strings.LastIndexByte(c.Type, '.')+1:]
				if !slices.Contains(out, name) {
					out = append(out, name)
				}
			}
		}
	}
	return out
}
