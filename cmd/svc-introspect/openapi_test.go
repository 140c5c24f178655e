package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOpenAPIFromSnapshot writes the description of a dumped snapshot
// without a database: OpenAPI 3.1 by default, for the role named, or the
// configuration's anonymous role, or, with neither, everything; Swagger
// 2.0 when asked. Bad flags are usage errors (exit 2).
func TestOpenAPIFromSnapshot(t *testing.T) {
	execSQL(t, `create schema oa;
		create table oa.open (id int primary key, note text);
		create table oa.closed (id int primary key);
		create function oa.twice(n int) returns int language sql immutable as 'select n * 2';
		create role oa_anon nologin;
		grant usage on schema oa to oa_anon;
		grant select on oa.open to oa_anon;
		revoke execute on function oa.twice(int) from public`)
	dir := t.TempDir()
	snap := filepath.Join(dir, "oa.msgpack")
	if code, _, stderr := svcIntrospect(t, "dump", "--db-uri", dbURI, "--db-schemas", "oa", "-o", snap); code != 0 {
		t.Fatalf("dump: %d %s", code, stderr)
	}
	doc := func(args ...string) map[string]any {
		t.Helper()
		code, stdout, stderr := svcIntrospect(t, append([]string{"openapi", "--snapshot", snap}, args...)...)
		if code != 0 {
			t.Fatalf("openapi %v: %d %s", args, code, stderr)
		}
		var d map[string]any
		if err := json.Unmarshal([]byte(stdout), &d); err != nil {
			t.Fatalf("openapi %v printed %.200s: %v", args, stdout, err)
		}
		return d
	}
	paths := func(d map[string]any) string {
		var out []string
		for p := range d["paths"].(map[string]any) {
			out = append(out, p)
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}

	anon := doc("--role", "oa_anon")
	if anon["openapi"] != "3.1.0" || paths(anon) != "/ /open" {
		t.Errorf("as oa_anon: openapi %v, paths %s; want 3.1.0, / /open", anon["openapi"], paths(anon))
	}
	if got := paths(doc("--db-anon-role", "oa_anon")); got != "/ /open" {
		t.Errorf("with db-anon-role oa_anon: paths %s", got)
	}
	if got := paths(doc()); got != "/ /closed /open /rpc/twice" {
		t.Errorf("without a role: paths %s, want everything", got)
	}
	v2 := doc("--role", "oa_anon", "--version", "2.0")
	if v2["swagger"] != "2.0" || paths(v2) != "/ /open" {
		t.Errorf("--version 2.0: swagger %v, paths %s", v2["swagger"], paths(v2))
	}

	out := filepath.Join(dir, "openapi.json")
	if code, stdout, stderr := svcIntrospect(t, "openapi", "--snapshot", snap, "--role", "oa_anon", "-o", out); code != 0 || stdout != "" {
		t.Fatalf("-o: %d %q %s", code, stdout, stderr)
	}
	if data, err := os.ReadFile(out); err != nil || !json.Valid(data) {
		t.Errorf("-o wrote %.100s (%v)", data, err)
	}

	for _, bad := range [][]string{
		{"--snapshot", snap, "--version", "3.0"},
		{"--snapshot", snap, "--role", "nobody_here"},
		{"--snapshot", snap, "--schema", "public"},
		{"--snapshot", filepath.Join(dir, "missing.msgpack")},
		{},
	} {
		if code, _, stderr := svcIntrospect(t, append([]string{"openapi"}, bad...)...); code != exitError || stderr == "" {
			t.Errorf("openapi %v: exit %d, stderr %q; want %d and a message", bad, code, stderr, exitError)
		}
	}
}
