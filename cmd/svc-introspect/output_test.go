package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDumpOutput: without -o, dump writes the configuration's snapshot
// file, resolved against the file as svc-serve resolves it, so the
// servers' next reload reads what was dumped; refuses a snapshot the
// servers read from the database, pointing at publish; and with neither,
// writes snapshot.msgpack in the working directory, saying where.
func TestDumpOutput(t *testing.T) {
	execSQL(t, `create schema dump_out; create table dump_out.things (id int primary key)`)
	t.Cleanup(func() { execSQL(t, "drop schema dump_out cascade") })
	dir := t.TempDir()
	t.Chdir(dir) // where a file written to a wrong relative path would land
	confDir := filepath.Join(dir, "conf")
	if err := os.MkdirAll(filepath.Join(confDir, "snaps"), 0o755); err != nil {
		t.Fatal(err)
	}
	conf := func(snapshot string) string {
		t.Helper()
		file := filepath.Join(confDir, "svc.conf")
		text := "db-uri = \"" + dbURI + "\"\ndb-schemas = \"dump_out\"\n" + snapshot
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return file
	}

	file := conf(`snapshot = "snaps/api.msgpack"`)
	want := filepath.Join(confDir, "snaps", "api.msgpack")
	code, stdout, stderr := svcIntrospect(t, "dump", "--config", file)
	if code != 0 || !strings.HasPrefix(stdout, "wrote "+want+": 1 relations") {
		t.Errorf("dump --config with a snapshot file: status %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(want); err != nil {
		t.Errorf("the configuration's snapshot file: %v", err)
	}
	// -o still wins.
	if code, stdout, stderr := svcIntrospect(t, "dump", "--config", file, "-o", "other.msgpack"); code != 0 ||
		!strings.HasPrefix(stdout, "wrote other.msgpack:") {
		t.Errorf("dump --config -o: status %d\n%s%s", code, stdout, stderr)
	}

	file = conf(`snapshot = "db:api_snaps"`)
	code, _, stderr = svcIntrospect(t, "dump", "--config", file)
	wantErr := `svc-introspect: snapshot = "db:api_snaps": the servers read the snapshot published in the database (schema api_snaps), ` +
		"not a file; run svc-introspect publish --config " + file + " --schema api_snaps to dump and publish it, or give -o FILE to write a file\n"
	if code != exitError || stderr != wantErr {
		t.Errorf("dump --config with snapshot = db: status %d, stderr\n%s\nwant\n%s", code, stderr, wantErr)
	}

	file = conf("")
	code, stdout, stderr = svcIntrospect(t, "dump", "--config", file)
	where, _ := filepath.Abs("snapshot.msgpack") // the working directory as the program sees it
	if code != 0 || !strings.HasPrefix(stdout, "wrote snapshot.msgpack: 1 relations") ||
		stderr != "svc-introspect: no -o, and the configuration names no snapshot file; writing "+where+"\n" {
		t.Errorf("dump --config without a snapshot setting: status %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "snapshot.msgpack")); err != nil {
		t.Errorf("the default file: %v", err)
	}
}
