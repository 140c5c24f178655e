package catalog

import (
	"fmt"
	"strings"
)

// SyntheticSchemaSQL returns SQL that creates schema "synth" holding the
// given numbers of tables, views and functions, shaped like an application
// schema, for benchmarking introspection at scale. Table i has a primary
// key, a unique key, a comment, and a foreign key to table i-1; view i joins
// table i%tables to its parent and renames columns; functions cycle through
// the return shapes and include computed relationships, so every query and
// inference path does work in proportion to the counts.
//
// Every statement ends with ";\n" at the end of a line, so callers may split
// the script there and run it in batches: in one transaction, thousands of
// tables take more locks than a default max_locks_per_transaction allows.
func SyntheticSchemaSQL(tables, views, functions int) string {
	var b strings.Builder
	b.WriteString("create schema synth;\n")
	b.WriteString("create type synth.status as enum ('draft', 'live', 'gone');\n")
	for i := range tables {
		fmt.Fprintf(&b, `create table synth.t%d (
  id bigint generated always as identity primary key,
  code varchar(20) not null unique,
  parent_id bigint%s,
  name text not null default '',
  status synth.status not null default 'draft',
  price numeric(10, 2),
  created_at timestamptz not null default now()
);
comment on table synth.t%d is 'synthetic table %d';
`, i, parentRef(i), i, i)
	}
	if tables > 0 {
		for i := range views {
			t := i % tables
			fmt.Fprintf(&b, `create view synth.v%d as
  select a.id as item_id, a.code, a.parent_id, a.name as item_name, p.name as parent_name
  from synth.t%d a left join synth.t%d p on p.id = a.parent_id;
`, i, t, parentOf(t))
		}
	}
	for i := range functions {
		t := i % max(tables, 1)
		switch {
		case tables == 0 || i%4 == 3:
			fmt.Fprintf(&b, "create function synth.f%d(a integer, b integer default 1) returns integer language sql immutable as 'select a + b';\n", i)
		case i%4 == 0:
			fmt.Fprintf(&b, "create function synth.f%d(r synth.t%d) returns setof synth.t%d language sql stable as 'select * from synth.t%d where parent_id = r.id';\n", i, parentOf(t), t, t)
		case i%4 == 1:
			fmt.Fprintf(&b, "create function synth.f%d(r synth.t%d) returns synth.t%d language sql stable as 'select * from synth.t%d where id = r.parent_id';\n", i, t, parentOf(t), parentOf(t))
		default:
			fmt.Fprintf(&b, "create function synth.f%d(q text, out id bigint, out name text) returns setof record language sql stable as 'select id, name from synth.t%d where name = q';\n", i, t)
		}
	}
	return b.String()
}

// parentOf is the table table i refers to: its predecessor, or itself for
// the first table.
func parentOf(i int) int { return max(i-1, 0) }

func parentRef(i int) string {
	return fmt.Sprintf(" references synth.t%d (id)", parentOf(i))
}
