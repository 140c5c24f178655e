package main

import (
	"path/filepath"
	"testing"
)

// TestDiffRenamesAndTypes: a column renamed by a migration is one line,
// a likely rename, not a removal and an addition "NOT NULL without a
// default: inserts must now supply it", which sent reviewers after the
// wrong problem; a new enum has a line of its own (issue 56).
func TestDiffRenamesAndTypes(t *testing.T) {
	execSQL(t, `create schema rn;
		create table rn.items (id int primary key, title text not null)`)
	t.Cleanup(func() { execSQL(t, "drop schema if exists rn cascade") })
	dir := t.TempDir()
	before, after := filepath.Join(dir, "before.msgpack"), filepath.Join(dir, "after.msgpack")
	if code, _, stderr := svcIntrospect(t, "dump", "--db-uri", dbURI, "--db-schemas", "rn", "-o", before); code != 0 {
		t.Fatalf("dump: %d %s", code, stderr)
	}
	execSQL(t, `alter table rn.items rename column title to label;
		create type rn.status as enum ('open', 'closed');
		alter table rn.items add column status rn.status`)
	if code, _, stderr := svcIntrospect(t, "dump", "--db-uri", dbURI, "--db-schemas", "rn", "-o", after); code != 0 {
		t.Fatalf("dump: %d %s", code, stderr)
	}
	code, stdout, _ := svcIntrospect(t, "diff", before, after)
	want := `BREAKING rn.items.label: column renamed from title to label; likely a rename (the same type and position as title): select, filters and writes naming title fail
         rn.items.status: column added (rn.status, nullable)
         rn.status: type added (enum: open, closed)
3 changes, 1 breaking
`
	if code != 0 || stdout != want {
		t.Errorf("diff: status %d, output\n%s\nwant\n%s", code, stdout, want)
	}
}
