package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPGRSTEnvironment: svc-introspect reads the configuration as
// svc-serve does. A PostgREST deployment's PGRST_* variables, with
// nothing setting compat-names, choose PostgREST's names and are read
// (saying so); compat-names = svc set on purpose refuses them by name.
func TestPGRSTEnvironment(t *testing.T) {
	execSQL(t, `create schema pgrst_env; create table pgrst_env.things (id int primary key)`)
	t.Cleanup(func() { execSQL(t, "drop schema pgrst_env cascade; drop schema if exists pgrst_env_snaps cascade") })
	t.Setenv("PGRST_DB_URI", dbURI)
	t.Setenv("PGRST_DB_SCHEMAS", "pgrst_env")
	file := filepath.Join(t.TempDir(), "api.msgpack")

	code, stdout, stderr := svcIntrospect(t, "dump", "-o", file)
	if code != 0 || !strings.HasPrefix(stdout, "wrote "+file+": 1 relations") {
		t.Fatalf("dump with PGRST_* variables: status %d\n%s%s", code, stdout, stderr)
	}
	chosen := "svc-introspect: warning: compat-names = postgrest chosen: PostgREST's environment variables " +
		"PGRST_DB_SCHEMAS, PGRST_DB_URI are set and nothing sets compat-names"
	if !strings.Contains(stderr, chosen) {
		t.Errorf("dump's stderr does not say why the naming was chosen:\n%s", stderr)
	}
	// publish notifies the channel of the naming the servers choose alike.
	code, stdout, stderr = svcIntrospect(t, "publish", "--file", file, "--schema", "pgrst_env_snaps")
	if code != 0 || !strings.HasSuffix(stdout, "; notified pgrst\n") {
		t.Errorf("publish with PGRST_* variables: status %d\n%s%s", code, stdout, stderr)
	}

	t.Setenv("SVC_COMPAT_NAMES", "svc")
	code, _, stderr = svcIntrospect(t, "dump", "-o", file)
	want := "svc-introspect: PostgREST's environment variables PGRST_DB_SCHEMAS, PGRST_DB_URI are set, and compat-names = svc " +
		"(environment variable SVC_COMPAT_NAMES) does not read them: set compat-names = postgrest to read them, " +
		"or unset them and set SVC_DB_SCHEMAS, SVC_DB_URI instead\n"
	if code != exitError || stderr != want {
		t.Errorf("dump under compat-names = svc: status %d, stderr\n%s\nwant\n%s", code, stderr, want)
	}
}
