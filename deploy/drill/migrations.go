package drill

import (
	"fmt"
	"slices"
	"strings"
)

// initialSQL creates the roles and the first version of the schema
// (initialVersion): an enum, a domain, a composite type and an extension's
// type in columns of api.items; a table embedded from it; a view; STABLE
// and VOLATILE functions; row-level security and grants that differ
// between the anonymous and the authenticated role.
//
// Rows 1 to seedRows are the seed: never written, so readers know them
// exactly, with their two tags each. Writers own ranges of ids above
// (workload.go); every row keeps name = item-<id>, code = id*7,
// email = item-<id>@drill.test, legacy = l<id>, size.h = id, and mood
// and size.w following qty; a written row may have the one tag w<id>.
var initialSQL = fmt.Sprintf(`
create role web_anon nologin;
create role web_user nologin;
create role authenticator login noinherit;
grant web_anon, web_user to authenticator;
create extension citext;
create schema api;
grant usage on schema api to web_anon, web_user;
create type api.mood as enum ('sad', 'ok', 'happy');
create domain api.qty as integer check (value > 0);
create type api.dims as (w integer, h integer);
create table api.authors (id integer primary key, name text not null);
insert into api.authors select g, 'author-' || g from generate_series(1, 5) g;
create table api.items (
  id integer primary key,
  author_id integer not null references api.authors,
  name text not null,
  qty api.qty not null,
  mood api.mood not null,
  size api.dims,
  code integer,
  email citext,
  legacy text,
  owner text not null default coalesce(nullif(current_setting('request.jwt.claims', true), '')::json ->> 'sub', 'anon')
);
insert into api.items
  select g, g %% 5 + 1, 'item-' || g, g, (array['sad', 'ok', 'happy'])[g %% 3 + 1]::api.mood, row(g, g)::api.dims,
         g * 7, 'item-' || g || '@drill.test', 'l' || g, 'seed'
  from generate_series(1, %d) g;
create table api.tags (
  item_id integer not null references api.items on delete cascade,
  label text not null,
  primary key (item_id, label)
);
insert into api.tags select g, 't' || g || x from generate_series(1, %[1]d) g, unnest(array['a', 'b']) x;
create view api.item_moods as select id, name, mood from api.items;
create function api.item_count() returns bigint stable language sql as $$ select count(*) from api.items $$;
%s
%s
%s
%s
alter table api.items enable row level security;
create policy read_all on api.items for select using (true);
create policy anon_write on api.items for all to web_anon using (owner = 'anon') with check (owner = 'anon');
create policy user_write on api.items for all to web_user
  using (owner = current_setting('request.jwt.claims', true)::json ->> 'sub')
  with check (owner = current_setting('request.jwt.claims', true)::json ->> 'sub');
grant select on api.authors, api.items, api.tags, api.item_moods to web_anon, web_user;
grant insert, update on api.items to web_anon, web_user;
grant delete on api.items to web_anon;
grant insert on api.tags to web_anon, web_user;
`, seedRows, itemTotalOldSQL, itemsByMoodSQL, setMoodSQL, bumpOldSQL)

// seedRows is how many rows of api.items (and their tags) the seed holds.
const seedRows = 20

// The functions whose argument is the enum: a STABLE one and a VOLATILE
// one, which a server must not run twice.
const (
	itemsByMoodSQL = `create function api.items_by_mood(m api.mood) returns setof api.items stable language sql
  as $$ select * from api.items where mood = m $$;`
	setMoodSQL = `create function api.set_mood(item integer, m api.mood) returns text volatile language sql
  as $$ update api.items set mood = m where id = item returning mood::text $$;`
)

// The two signatures of api.bump. Each keeps mood and size.w following
// qty, as writers do.
const (
	bumpOldSQL = `create function api.bump(item integer) returns integer volatile language sql as $$
  update api.items set qty = qty + 1, mood = (array['sad', 'ok', 'happy'])[(qty + 1) % 3 + 1]::api.mood, size.w = qty + 1
  where id = item returning qty::integer $$;`
	bumpNewSQL = `create function api.bump(item_id integer, amount integer) returns table (id integer, qty integer)
  volatile language sql as $$
  update api.items i set qty = i.qty + amount, mood = (array['sad', 'ok', 'happy'])[(i.qty + amount) % 3 + 1]::api.mood,
    size.w = i.qty + amount
  where i.id = item_id returning i.id, i.qty::integer $$;`
)

// The two results of api.item_total(n), whose argument stays: a value,
// then a table of two rows. A node planning with the old snapshot against
// the new function must not answer one of those rows as the value.
const (
	itemTotalOldSQL = `create function api.item_total(n integer) returns integer stable language sql as $$ select n * 2 $$;`
	itemTotalNewSQL = `create function api.item_total(n integer) returns table (total integer, tag text) stable language sql
  as $$ select n * 2, 'x' union all select n * 2, 'y' $$;`
)

// action is how a step reaches the servers once committed.
type action struct {
	// publish, when not nil, runs svc-introspect publish for these
	// schemas (storing the snapshot and notifying 'reload schema');
	// otherwise the action is NOTIFY svc, 'reload config'.
	publish []string
}

var (
	publishAPI   = action{publish: []string{"api"}}
	reloadConfig = action{}
)

// Step is one migration: its SQL, committed in one transaction, what it
// does to the model, and how the servers are told.
type Step struct {
	Name string
	// SQL is the migration, written for the version before it.
	SQL func(v *Version) string
	// Apply turns the version before into the one after.
	Apply func(v *Version)
	// Actions run in order after the commit.
	Actions []action
	// Short marks the steps of the short form.
	Short bool
	// Rewrites marks a step that rewrites api.items (ALTER COLUMN ...
	// TYPE). Such a rewrite is not MVCC-safe, as PostgreSQL documents: a
	// statement whose snapshot was taken before the COMMIT and that first
	// locks the table after it, as a STABLE function's query does, finds
	// the table empty.
	Rewrites bool
}

// viewSQL creates api.item_moods with v's view columns: a view must be
// dropped and made again when a column it reads changes type.
func viewSQL(v *Version) string {
	cols := make([]string, len(v.ViewCols))
	for i, c := range v.ViewCols {
		cols[i] = c
		if c == "name" && v.nameCol() != "name" {
			// The view keeps the name it was created with when the
			// table's column is renamed.
			cols[i] = v.nameCol() + " as name"
		}
	}
	return "create view api.item_moods as select " + strings.Join(cols, ", ") + " from api.items;\n" +
		"grant select on api.item_moods to web_anon, web_user;\n"
}

// aroundView runs sql with the view dropped before and created after
// when the view reads any of cols.
func aroundView(v *Version, cols []string, sql string) string {
	uses := slices.ContainsFunc(cols, func(c string) bool {
		return slices.Contains(v.ViewCols, c) || (c == v.nameCol() && slices.Contains(v.ViewCols, "name"))
	})
	if !uses {
		return sql
	}
	return "drop view api.item_moods;\n" + sql + viewSQL(v)
}

// steps is the full drill, in order; each kind of DDL the issue names
// has a step.
var steps = []Step{
	{
		Name:  "add column",
		SQL:   fixed(`alter table api.items add column color text not null default 'red';`),
		Apply: func(v *Version) { v.ItemCols = append(v.ItemCols, "color") },
		Short: true,
	},
	{
		Name: "drop column",
		SQL:  fixed(`alter table api.items drop column legacy;`),
		Apply: func(v *Version) {
			v.ItemCols = slices.DeleteFunc(v.ItemCols, func(c string) bool { return c == "legacy" })
		},
	},
	{
		Name: "rename column",
		SQL:  fixed(`alter table api.items rename column name to title;`),
		Apply: func(v *Version) {
			v.ItemCols[slices.Index(v.ItemCols, "name")] = "title"
		},
	},
	{
		Name:     "change column type",
		Rewrites: true,
		SQL:      fixed(`alter table api.items alter column code type text using code::text;`),
		Apply:    func(v *Version) { v.CodeText = true },
	},
	{
		Name:  "add enum value",
		SQL:   fixed(`alter type api.mood add value 'ecstatic';`),
		Apply: func(v *Version) { v.Labels = append(v.Labels, "ecstatic") },
		Short: true,
	},
	{
		// Recreating an enum is how a label is removed: the new type
		// lacks 'ecstatic', which no row holds.
		Name:     "recreate enum",
		Rewrites: true,
		SQL: func(v *Version) string {
			labels := "'" + strings.Join(baseLabels, "', '") + "'"
			return aroundView(v, []string{"mood"}, `drop function api.items_by_mood(api.mood);
drop function api.set_mood(integer, api.mood);
create type api.mood_new as enum (`+labels+`);
alter table api.items alter column mood type api.mood_new using mood::text::api.mood_new;
drop type api.mood;
alter type api.mood_new rename to mood;
`+itemsByMoodSQL+"\n"+setMoodSQL+"\n")
		},
		Apply: func(v *Version) { v.Labels = slices.Clone(baseLabels) },
		Short: true,
	},
	{
		// The same shape under a new type: only the type's identity
		// and its check change.
		Name:     "recreate domain",
		Rewrites: true,
		SQL: func(v *Version) string {
			return aroundView(v, []string{"qty"}, `create domain api.qty_new as integer check (value > 0 and value < 1000000);
alter table api.items alter column qty type api.qty_new using qty::integer;
drop domain api.qty;
alter domain api.qty_new rename to qty;
`)
		},
		Apply: func(*Version) {},
	},
	{
		Name:     "recreate composite",
		Rewrites: true,
		SQL: fixed(`create type api.dims_new as (w integer, h integer, d integer);
alter table api.items alter column size type api.dims_new
  using case when size is null then null else row((size).w, (size).h, null)::api.dims_new end;
drop type api.dims;
alter type api.dims_new rename to dims;`),
		Apply: func(v *Version) { v.DimsD = true },
	},
	{
		Name:  "replace function",
		SQL:   fixed("drop function api.bump(integer);\n" + bumpNewSQL),
		Apply: func(v *Version) { v.BumpNew = true },
		Short: true,
	},
	{
		Name:  "change function return type",
		SQL:   fixed("drop function api.item_total(integer);\n" + itemTotalNewSQL),
		Apply: func(v *Version) { v.TotalTable = true },
		Short: true,
	},
	{
		Name: "recreate view",
		SQL: func(v *Version) string {
			next := v.clone()
			recreatedView(next)
			return "drop view api.item_moods;\n" + viewSQL(next)
		},
		Apply: recreatedView,
	},
	{
		// The same shape under a new table: rows copied over, grants
		// given again. The locks come first, so no write lands between
		// the copy and the drop, and in the order reads take them (items,
		// then tags embedded in it): dropping the table's foreign key
		// locks items too, and the other order deadlocks with an embed.
		Name: "drop and recreate table",
		SQL: fixed(`lock table api.items, api.tags in access exclusive mode;
create temporary table tags_copy on commit drop as select * from api.tags;
drop table api.tags;
create table api.tags (
  item_id integer not null references api.items on delete cascade,
  label text not null,
  primary key (item_id, label)
);
insert into api.tags select * from tags_copy;
grant select, insert on api.tags to web_anon, web_user;`),
		Apply: func(*Version) {},
		Short: true,
	},
	{
		Name: "change RLS policy",
		SQL: fixed(`drop policy read_all on api.items;
create policy read_all on api.items for select to web_user using (true);
create policy anon_read on api.items for select to web_anon using (owner <> 'u1');`),
		Apply: func(v *Version) { v.AnonHidesU1 = true },
	},
	{
		Name:  "grant/revoke",
		SQL:   fixed(`revoke delete on api.items from web_anon; grant delete on api.items to web_user;`),
		Apply: func(v *Version) { v.AnonDelete, v.UserDelete = false, true },
	},
	{
		// The snapshot covering both schemas is published before the
		// servers are told to expose api2, since a server refuses a
		// configuration its snapshot does not cover.
		Name: "add exposed schema",
		SQL: fixed(`create schema api2;
grant usage on schema api2 to web_anon, web_user;
create table api2.things (id integer primary key, label text not null);
insert into api2.things select g, 'thing-' || g from generate_series(1, 3) g;
grant select on api2.things to web_anon, web_user;
alter role authenticator set svc.db_schemas = 'api,api2';`),
		Apply:   func(v *Version) { v.Api2 = true },
		Actions: []action{{publish: []string{"api", "api2"}}, reloadConfig},
	},
	{
		// The reverse order: the servers stop exposing api2 before the
		// snapshot without it is published.
		Name: "drop exposed schema",
		SQL: fixed(`alter role authenticator reset svc.db_schemas;
drop schema api2 cascade;`),
		Apply:   func(v *Version) { v.Api2 = false },
		Actions: []action{reloadConfig, publishAPI},
	},
	{
		// email keeps its type's name and shape, under the new
		// extension's type.
		Name:     "drop and create extension",
		Rewrites: true,
		SQL: fixed(`alter table api.items alter column email type text;
drop extension citext;
create extension citext;
alter table api.items alter column email type citext;`),
		Apply: func(*Version) {},
	},
}

// recreatedView is the view after "recreate view": the item's current
// name column, and qty.
func recreatedView(v *Version) { v.ViewCols = []string{"id", v.nameCol(), "mood", "qty"} }

func fixed(sql string) func(*Version) string { return func(*Version) string { return sql } }

// actions are the step's actions, publishing the api schema by default.
func (s Step) actions() []action {
	if s.Actions == nil {
		return []action{publishAPI}
	}
	return s.Actions
}
