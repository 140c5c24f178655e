-- End-to-end fixture: a small library in schema "test", served to the
-- anonymous role web_anon. Case files under cases/ read against it.
create role web_anon nologin;
create role authenticator login noinherit;
grant web_anon to authenticator;

create schema test;
grant usage on schema test to web_anon;

create table test.authors (
  id integer primary key,
  name text not null,
  born date
);

create table test.books (
  id integer primary key,
  title text not null,
  author_id integer references test.authors(id),
  year integer,
  pages integer,
  tags text[] not null default '{}',
  meta jsonb
);

create table test.secrets (
  id integer primary key,
  value text
);

create view test.recent_books as
  select id, title, year from test.books where year >= 1980;

insert into test.authors values
  (1, 'Frank Herbert', '1920-10-08'),
  (2, 'Ursula K. Le Guin', '1929-10-21'),
  (3, 'Octavia E. Butler', null);

insert into test.books values
  (1, 'Dune', 1, 1965, 412, '{classic,desert}', '{"series": "Dune", "rating": 5}'),
  (2, 'Children of Dune', 1, 1976, 444, '{desert}', '{"series": "Dune", "rating": 4}'),
  (3, 'The Left Hand of Darkness', 2, 1969, 304, '{classic}', null),
  (4, 'The Dispossessed', 2, 1974, 387, '{}', '{"rating": 5}'),
  (5, 'Kindred', 3, 1979, 264, '{classic}', null),
  (6, 'Parable of the Sower', 3, 1993, 345, '{}', '{"rating": 4}'),
  (7, 'Wild Seed', 3, 1980, null, '{}', null);

grant select on test.authors, test.books, test.recent_books to web_anon;
analyze test.authors;

-- A second exposed schema, selected with Accept-Profile.
create schema other;
grant usage on schema other to web_anon;
create table other.books (id integer primary key, title text);
insert into other.books values (1, 'Other Dune');
grant select on other.books to web_anon;

-- Every relation kind that is served: a materialized view and a partitioned
-- table (its partitions are not routes of their own).
create materialized view test.author_stats as
  select author_id, count(*)::int as books, min(year) as first_year
  from test.books group by author_id;
create table test.events (id integer, at date not null, kind text) partition by range (at);
create table test.events_2025 partition of test.events for values from ('2025-01-01') to ('2026-01-01');
create table test.events_2026 partition of test.events for values from ('2026-01-01') to ('2027-01-01');
insert into test.events values (1, '2025-03-01', 'open'), (2, '2026-02-01', 'close'), (3, '2025-12-31', 'open');
grant select on test.author_stats, test.events, test.events_2025 to web_anon;

-- Ranges, a composite column and booleans, for the operators and paths
-- that need them.
create type test.coords as (lat numeric, lng numeric);
create table test.places (
  id integer primary key,
  name text not null,
  open_hours int4range,
  location test.coords,
  verified boolean,
  notes text
);
insert into test.places values
  (1, 'Harbor', '[8,12)', '(59.9,10.7)', true, 'quiet morning harbor'),
  (2, 'Market', '[10,18)', '(60.4,5.3)', false, 'busy market square'),
  (3, 'Tower', '[20,23)', null, null, null);
grant select on test.places to web_anon;

-- Resource embedding (cases/embed_*.case). Clients own projects, projects
-- own tasks: three levels of many-to-one / one-to-many. Umbrella has no
-- projects; Stapler and Sandbox have no tasks; Sandbox has no client.
create table test.clients (
  id integer primary key,
  name text not null
);
create table test.projects (
  id integer primary key,
  name text not null,
  client_id integer constraint projects_client_id_fkey references test.clients(id),
  active boolean not null default true
);
create table test.tasks (
  id integer primary key,
  name text not null,
  project_id integer not null constraint tasks_project_id_fkey references test.projects(id)
);
-- One-to-one: the foreign key is the primary key.
create table test.project_details (
  project_id integer primary key constraint project_details_project_id_fkey references test.projects(id),
  budget integer not null
);
-- Many-to-many: users_tasks joins users and tasks (key = both foreign
-- keys); assignments joins users and projects with an extra key column
-- (Cid holds two roles on Portal, so Portal lists Cid twice through it);
-- project_followers is a second junction between users and projects, so a
-- bare users <-> projects embed is ambiguous.
create table test.users (
  id integer primary key,
  name text not null
);
create table test.users_tasks (
  user_id integer constraint users_tasks_user_id_fkey references test.users(id),
  task_id integer constraint users_tasks_task_id_fkey references test.tasks(id),
  primary key (user_id, task_id)
);
create table test.assignments (
  user_id integer constraint assignments_user_id_fkey references test.users(id),
  project_id integer constraint assignments_project_id_fkey references test.projects(id),
  role text,
  primary key (user_id, project_id, role)
);
create table test.project_followers (
  user_id integer constraint project_followers_user_id_fkey references test.users(id),
  project_id integer constraint project_followers_project_id_fkey references test.projects(id),
  primary key (user_id, project_id)
);
-- Two foreign keys between the same two tables.
create table test.addresses (
  id integer primary key,
  city text not null
);
create table test.orders (
  id integer primary key,
  billing_address_id integer constraint orders_billing_fkey references test.addresses(id),
  shipping_address_id integer constraint orders_shipping_fkey references test.addresses(id)
);

insert into test.clients values (1, 'Acme'), (2, 'Globex'), (3, 'Initech'), (4, 'Umbrella');
insert into test.projects values
  (1, 'Rocket', 1, true), (2, 'Anvil', 1, false), (3, 'Portal', 2, true),
  (4, 'Stapler', 3, true), (5, 'Sandbox', null, true);
insert into test.tasks values
  (1, 'Design', 1), (2, 'Build', 1), (3, 'Launch', 1), (4, 'Forge', 2),
  (5, 'Install', 3), (6, 'Patch', 3);
insert into test.project_details values (1, 1000), (3, 500), (4, 250);
insert into test.users values (1, 'Ann'), (2, 'Bob'), (3, 'Cid'), (4, 'Dee');
insert into test.users_tasks values (1, 1), (1, 2), (1, 6), (2, 2), (2, 4), (3, 5), (3, 6);
insert into test.assignments values
  (1, 1, 'lead'), (2, 1, 'dev'), (2, 2, 'lead'), (3, 3, 'dev'), (3, 3, 'ops'), (1, 4, 'lead');
insert into test.project_followers values (4, 1), (2, 3);
insert into test.addresses values (1, 'Oslo'), (2, 'Bergen'), (3, 'Lima'), (4, 'Quito');
insert into test.orders values (1, 1, 2), (2, 3, 3), (3, 1, null);

-- Views keep the relationships of the table they show when they show its
-- key and foreign key columns, also a view over a view.
create view test.projects_v as select id, name, client_id from test.projects;
create view test.projects_vv as select * from test.projects_v;

-- A base table outside the exposed schemas, shown by a view in test: the
-- view is one-to-one with clients. A second chain goes through a view in
-- private, which is only followed with db-extra-search-path = private.
create schema private;
grant usage on schema private to web_anon;
create table private.details (
  id integer primary key constraint details_id_fkey references test.clients(id),
  note text not null
);
insert into private.details values (1, 'pays late'), (3, 'prefers email');
create view test.client_notes as select id, note from private.details;
create view private.details_v as select id, note from private.details;
create view test.scribbles as select id, note from private.details_v;

-- Computed relationships: a to-one (rows 1) and a to-many one.
create function test.project_client(test.projects) returns setof test.clients
  rows 1 language sql stable as $$ select * from test.clients where id = $1.client_id $$;
create function test.client_open_projects(test.clients) returns setof test.projects
  rows 10 language sql stable as $$ select * from test.projects where client_id = $1.id and active $$;

-- Self reference, embedded only through computed relationships.
create table test.employees (
  id integer primary key,
  name text not null,
  manager_id integer constraint employees_manager_id_fkey references test.employees(id)
);
insert into test.employees values (1, 'Grace', null), (2, 'Alan', 1), (3, 'Ada', 1), (4, 'Linus', 2);
create function test.manager(test.employees) returns setof test.employees
  rows 1 language sql stable as $$ select * from test.employees where id = $1.manager_id $$;
create function test.reports(test.employees) returns setof test.employees
  language sql stable as $$ select * from test.employees where manager_id = $1.id $$;

-- A materialized view has no constraints, but its id column traces to
-- clients.id, so it takes the clients' relationships (projects point at it).
create materialized view test.client_totals as
  select c.id, c.name, (select count(*) from test.projects p where p.client_id = c.id)::int as project_count
  from test.clients c;

-- A partitioned table with a foreign key, embedded both ways.
create table test.measurements (
  id integer not null,
  client_id integer constraint measurements_client_id_fkey references test.clients(id),
  at date not null,
  value integer,
  primary key (id, at)
) partition by range (at);
create table test.measurements_2024 partition of test.measurements
  for values from ('2024-01-01') to ('2025-01-01');
insert into test.measurements values
  (1, 1, '2024-01-10', 5), (2, 1, '2024-02-10', 7), (3, 2, '2024-03-01', 3);
-- A table whose foreign key references the partitioned table, so that it
-- embeds it as a parent.
create table test.measurement_notes (
  id integer primary key,
  measurement_id integer not null,
  at date not null,
  note text,
  constraint measurement_notes_measurement_fkey foreign key (measurement_id, at) references test.measurements (id, at)
);
insert into test.measurement_notes values (1, 2, '2024-02-10', 'checked');

grant select on test.clients, test.projects, test.tasks, test.project_details,
  test.users, test.users_tasks, test.assignments, test.project_followers,
  test.addresses, test.orders, test.projects_v, test.projects_vv,
  test.client_notes, test.scribbles, test.employees, test.client_totals,
  test.measurements, test.measurement_notes, private.details, private.details_v to web_anon;
grant execute on function test.project_client(test.projects),
  test.client_open_projects(test.clients), test.manager(test.employees),
  test.reports(test.employees) to web_anon;

-- Writes (cases/write_*.case). Every table here starts with w_ and holds
-- no rows of its own: writes_reset.sql, run before each write_* file,
-- empties and refills them all. w_items has a serial key and defaults;
-- w_pairs a composite key; w_users unique keys besides the primary key
-- (for on_conflict); w_checked a check and a not-null constraint;
-- w_children a foreign key to w_parents; w_tasks takes limited updates
-- and deletes; w_docs a jsonb and an array column; w_bulk a large insert.
-- web_anon may insert only some columns of w_restricted and may only read
-- w_readonly.
create table test.w_items (
  id serial primary key,
  name text not null,
  qty integer default 1,
  note text,
  created date default '2026-01-01'
);
create table test.w_pairs (
  a integer,
  b text,
  val text,
  primary key (a, b)
);
create table test.w_users (
  id integer primary key,
  email text not null constraint w_users_email_key unique,
  name text,
  org text,
  handle text,
  constraint w_users_org_handle_key unique (org, handle)
);
create table test.w_checked (
  id integer primary key,
  label text not null,
  amount integer constraint w_checked_amount_check check (amount >= 0)
);
create table test.w_parents (
  id integer primary key,
  name text not null
);
create table test.w_children (
  id integer primary key,
  parent_id integer not null constraint w_children_parent_id_fkey references test.w_parents(id),
  name text
);
create table test.w_tasks (
  id integer primary key,
  title text not null,
  done boolean not null default false,
  priority integer
);
create table test.w_docs (
  id integer primary key,
  body jsonb,
  tags text[] not null default '{}'
);
create table test.w_restricted (
  id integer primary key,
  name text,
  secret text default 'hidden'
);
create table test.w_readonly (
  id integer primary key,
  name text
);
create table test.w_bulk (
  id integer primary key,
  name text not null
);
-- A view whose key, traced to both tables, may be null: a team without a
-- coach. Inserts go to w_teams through the rule.
create table test.w_coaches (
  id integer primary key
);
create table test.w_teams (
  id integer primary key,
  coach_id integer references test.w_coaches
);
create view test.w_team_coaches as
  select t.id, c.id as coach_id from test.w_teams t left join test.w_coaches c on t.coach_id = c.id;
create rule w_team_coaches_insert as on insert to test.w_team_coaches do instead
  insert into test.w_teams (id, coach_id) values (new.id, new.coach_id) returning id, coach_id;
grant select, insert on test.w_team_coaches to web_anon;
grant select, insert, update, delete on test.w_items, test.w_pairs, test.w_users,
  test.w_checked, test.w_parents, test.w_children, test.w_tasks, test.w_docs,
  test.w_bulk to web_anon;
grant usage on sequence test.w_items_id_seq to web_anon;
grant select on test.w_restricted, test.w_readonly to web_anon;
grant insert (id, name) on test.w_restricted to web_anon;

-- Upserts where a returned row cannot tell inserted from updated by xmax
-- (cases/write_upsert_kinds.case): w_parts is partitioned, w_pairs_v an
-- auto-updatable view; w_loose has no primary key, so a resolution has no
-- conflict target there and the insert is a plain one.
create table test.w_parts (
  region text,
  code integer,
  label text,
  primary key (region, code)
) partition by list (region);
create table test.w_parts_eu partition of test.w_parts for values in ('eu');
create table test.w_parts_us partition of test.w_parts for values in ('us');
create table test.w_loose (
  a text,
  b text
);
create view test.w_pairs_v as select a, b, val from test.w_pairs;
grant select, insert, update on test.w_parts, test.w_loose, test.w_pairs_v to web_anon;

-- Column privileges (cases/write_column_privileges.case): web_anon may
-- write w_accounts and its view whole but read only id and email, so a
-- representation can hold only those. w_child_parent is a computed
-- relationship, whose function takes a written row whole.
create table test.w_accounts (
  id integer primary key,
  email text not null,
  password text not null default 'unset'
);
create view test.w_accounts_v as select id, email, password from test.w_accounts;
grant select (id, email) on test.w_accounts, test.w_accounts_v to web_anon;
grant insert, update, delete on test.w_accounts, test.w_accounts_v to web_anon;
create function test.w_child_parent(test.w_children) returns setof test.w_parents
  rows 1 language sql stable as $$ select * from test.w_parents where id = $1.parent_id $$;
grant execute on function test.w_child_parent(test.w_children) to web_anon;

-- Prefer: missing=default (cases/write_missing_default.case): an identity
-- column, a domain with a default (and a column default over it), a view
-- default, and an identity sequence whose name needs quoting.
create domain test.w_code as integer default 666;
create table test.w_defaults (
  id integer generated by default as identity primary key,
  code test.w_code,
  own test.w_code default 420,
  label text not null default 'none',
  note text
);
create view test.w_defaults_v as select id, code, own, label, note from test.w_defaults;
alter view test.w_defaults_v alter column label set default 'from view';
create table test."W_Mixed" (
  id integer generated by default as identity primary key,
  name text
);
grant select, insert, update, delete on test.w_defaults, test.w_defaults_v, test."W_Mixed" to web_anon;
grant usage on sequence test.w_defaults_id_seq, test."W_Mixed_id_seq" to web_anon;
-- A name a URL has to escape (response_headers.case: Content-Location).
create view test."w spaced" as select 1 as id;
grant select on test."w spaced" to web_anon;

-- An auto-updatable view over w_tasks: limited writes on a view pick rows by
-- the order's columns (views have no ctid).
create view test.w_tasks_v as select id, title, done, priority from test.w_tasks;
grant select, update, delete on test.w_tasks_v to web_anon;

-- Singular answers on writes and errors raised at commit
-- (cases/write_singular.case, write_commit.case). w_finish and
-- w_finish_ids mark the tasks of one priority done and return them (rows,
-- scalars). w_deferred checks at commit: a deferred unique key on code, and
-- a deferred constraint trigger refusing the note 'refuse' (P0001) and the
-- note 'serialize' (40001, as a serialization failure at commit reads).
create function test.w_finish(priority integer) returns setof test.w_tasks
  language sql volatile as $$
    update test.w_tasks t set done = true where t.priority = w_finish.priority returning t.* $$;
create function test.w_finish_ids(priority integer) returns setof integer
  language sql volatile as $$
    update test.w_tasks t set done = true where t.priority = w_finish_ids.priority returning t.id $$;
create table test.w_deferred (
  id integer primary key,
  code text constraint w_deferred_code_key unique deferrable initially deferred,
  note text
);
create function test.w_deferred_note() returns trigger
  language plpgsql as $$
  begin
    if new.note = 'refuse' then
      raise exception 'note % refused at commit', new.note using detail = 'deferred trigger';
    elsif new.note = 'serialize' then
      raise exception 'could not serialize access' using errcode = 'serialization_failure';
    end if;
    return null;
  end $$;
create constraint trigger w_deferred_note after insert or update on test.w_deferred
  deferrable initially deferred for each row execute function test.w_deferred_note();
create function test.w_defer(id integer, code text, note text default null) returns integer
  language sql volatile as $$
    insert into test.w_deferred values (w_defer.id, w_defer.code, w_defer.note) returning id $$;
grant select, insert, update, delete on test.w_deferred to web_anon;

-- Function calls (cases/rpc_*.case). Scalars: add, greet (a default
-- argument), now_fixed (no arguments). over is overloaded by argument
-- names; clash by argument types only (same names, so ambiguous).
-- author_of and shelf_of return one composite (a table's row type and a
-- type of their own); books_by returns rows of books (so they embed
-- authors), tiny_table returns a table of its own. touch returns void;
-- add_author writes (to rpc_log), so only POST may call it; fail_plain
-- raises an error with a detail and a hint.
create function test.add(a integer, b integer) returns integer
  language sql immutable as $$ select a + b $$;
create function test.greet(name text default 'world') returns text
  language sql stable as $$ select 'hello ' || name $$;
create function test.now_fixed() returns date
  language sql immutable as $$ select date '2024-02-29' $$;
create function test.over(a integer) returns text
  language sql immutable as $$ select 'one: ' || a $$;
create function test.over(a integer, b integer) returns text
  language sql immutable as $$ select 'two: ' || (a + b) $$;
create function test.clash(x integer) returns text
  language sql immutable as $$ select 'integer' $$;
create function test.clash(x text) returns text
  language sql immutable as $$ select 'text' $$;
create function test.author_of(book_id integer) returns test.authors
  language sql stable as $$
    select a.* from test.authors a join test.books b on b.author_id = a.id
    where b.id = book_id $$;
create type test.shelf as (author text, books integer, pages bigint, newest integer);
create function test.shelf_of(author integer) returns test.shelf
  language sql stable as $$
    select a.name, count(b.id)::integer, sum(b.pages), max(b.year)
    from test.authors a left join test.books b on b.author_id = a.id
    where a.id = author group by a.name $$;
create function test.books_by(author integer) returns setof test.books
  language sql stable as $$ select * from test.books where author_id = author $$;
create function test.tiny_table() returns table (n integer, sq integer)
  language sql stable as $$ select g, g * g from generate_series(1, 3) g $$;
create function test.touch() returns void
  language plpgsql volatile as $$ begin null; end $$;
create table test.rpc_log (
  id serial primary key,
  name text not null
);
create function test.add_author(name text) returns integer
  language plpgsql volatile as $$
  begin
    insert into test.rpc_log (name) values (add_author.name);
    return length(add_author.name);
  end $$;
create function test.fail_plain() returns integer
  language plpgsql as $$
  begin
    raise exception 'nope' using detail = 'd', hint = 'h';
  end $$;
grant select, insert on test.rpc_log to web_anon;
-- log_then_nap writes to rpc_log, then sleeps: a slow write for the tests
-- of clients that leave mid-request (clientgone_test.go).
create function test.log_then_nap(name text, seconds float8) returns void
  language plpgsql volatile as $$
  begin
    insert into test.rpc_log (name) values (log_then_nap.name);
    perform pg_sleep(seconds);
  end $$;
grant usage on sequence test.rpc_log_id_seq to web_anon;
grant execute on function test.add(integer, integer), test.greet(text),
  test.now_fixed(), test.over(integer), test.over(integer, integer),
  test.clash(integer), test.clash(text), test.author_of(integer),
  test.shelf_of(integer), test.books_by(integer), test.tiny_table(),
  test.touch(), test.add_author(text), test.fail_plain() to web_anon;

-- Function bodies and function-controlled responses (cases/rpc_bodies.case,
-- rpc_responses.case).
create function test.echo_json(json) returns json immutable language sql as $$ select $1 $$;
create function test.shout(text) returns text immutable language sql as $$ select upper($1) $$;
create function test.byte_count(bytea) returns int immutable language sql as $$ select length($1) $$;
create function test.xml_text(xml) returns text immutable language sql as $$ select $1::text $$;
create function test.keys_of(payload jsonb) returns text[] immutable language sql as
  $$ select array(select jsonb_object_keys(payload) order by 1) $$;
create function test.total(variadic v int[]) returns int immutable language sql as
  $$ select sum(x)::int from unnest(v) x $$;
create function test.array_len(a int[]) returns int immutable language sql as $$ select array_length(a, 1) $$;
create function test.custom_error() returns int language plpgsql as $$
begin
  raise sqlstate 'SVC00' using message = '{"code":"123","message":"Payment Required","details":"card declined","hint":"upgrade"}',
    detail = '{"status":402,"headers":{"X-Powered-By":"Nerd Rage"}}';
end $$;
create function test.bad_custom_error() returns int language plpgsql as $$
begin raise sqlstate 'SVC00' using message = 'not json', detail = '{"status":402}'; end $$;
create function test.teapot() returns int language plpgsql as $$
begin raise sqlstate 'PT418' using message = 'I am a teapot'; end $$;
create function test.with_headers() returns int stable language plpgsql as $$
begin
  perform set_config('response.headers', '[{"X-Answer":"42"},{"Cache-Control":"no-store"}]', true);
  perform set_config('response.status', '202', true);
  return 42;
end $$;
-- A search that finds nothing and says so: its settings must arrive with
-- no row to carry them (rpc_responses.case).
create function test.none_found() returns setof test.authors stable language plpgsql as $$
begin
  perform set_config('response.headers', '[{"X-Searched":"authors"}]', true);
  perform set_config('response.status', '404', true);
end $$;
create function test.bad_headers() returns int stable language plpgsql as $$
begin perform set_config('response.headers', '{"not":"an array"}', true); return 1; end $$;
-- Headers HTTP cannot carry as set: JSON escapes decode to a NUL, to a CR
-- and LF that would start another header, and a name that is no token.
create function test.header_with_nul() returns int stable language plpgsql as $$
begin perform set_config('response.headers', '[{"X-Bad":"a\u0000b"}]', true); return 1; end $$;
create function test.header_with_crlf() returns int stable language plpgsql as $$
begin perform set_config('response.headers', '[{"X-Split":"a\r\nSet-Cookie: evil=1"}]', true); return 1; end $$;
create function test.header_bad_name() returns int stable language plpgsql as $$
begin perform set_config('response.headers', '[{"Bad Name":"x"}]', true); return 1; end $$;
-- A header chosen by the caller, set through response.headers or raised
-- with a custom error (functionheaders_test.go: the framing fields a
-- function may not set).
create function test.set_header(name text, value text) returns int stable language plpgsql as $$
begin
  perform set_config('response.headers', json_build_array(json_build_object(name, value))::text, true);
  return 1;
end $$;
create function test.raise_header(name text, value text) returns int stable language plpgsql as $$
begin
  raise sqlstate 'SVC00' using message = '{"code":"123","message":"m"}',
    detail = json_build_object('status', 402, 'headers', json_build_object(name, value))::text;
end $$;
-- The same as PostgREST raises it, read under compat-names = postgrest.
create function test.raise_header_pgrst(name text, value text) returns int stable language plpgsql as $$
begin
  raise sqlstate 'PGRST' using message = '{"code":"123","message":"m"}',
    detail = json_build_object('status', 402, 'headers', json_build_object(name, value))::text;
end $$;
create function test.custom_error_spaced() returns int language plpgsql as $$
begin raise sqlstate 'SVC00' using message = '{"code":"no \"such\" code","message":"m"}', detail = '{"status":418,"headers":{}}'; end $$;
-- Custom errors whose detail is not what PostgREST reads (SVC121): not
-- JSON, without the obligatory headers, and missing.
create function test.custom_error_bad_detail() returns int language plpgsql as $$
begin raise sqlstate 'SVC00' using message = '{"code":"123","message":"m"}', detail = 'INVALID'; end $$;
create function test.custom_error_no_headers() returns int language plpgsql as $$
begin raise sqlstate 'SVC00' using message = '{"code":"123","message":"m"}', detail = '{"status":402}'; end $$;
create function test.custom_error_no_detail() returns int language plpgsql as $$
begin raise sqlstate 'SVC00' using message = '{"code":"123","message":"m","details":"d"}'; end $$;
create function test.custom_error_bad_header() returns int language plpgsql as $$
begin
  raise sqlstate 'SVC00' using message = '{"code":"123","message":"m"}',
    detail = '{"status":402,"headers":{"X-Split":"a\r\nSet-Cookie: evil=1"}}';
end $$;
create function test.bad_status() returns int stable language plpgsql as $$
begin perform set_config('response.status', 'teapot', true); return 1; end $$;
create function test.numbers(n int) returns setof int stable language sql as $$ select generate_series(1, n) $$;
-- Sets of scalars read as rows of one column (cases/rpc_scalar_sets.case):
-- text that CSV must quote, a null, and JSON values with paths.
create function test.scalar_words() returns setof text immutable language sql as $$
  values ('plain'), ('a,b'), ('say "hi"'), (null) $$;
create function test.scalar_docs() returns setof jsonb immutable language sql as $$
  values ('{"k":1,"tag":"x"}'::jsonb), ('{"k":2,"tag":"y"}') $$;

-- Standard conditions raised on purpose take the status of their SQLSTATE
-- (cases/rpc_errors.case); locked_fn is not executable by web_anon.
create function test.not_allowed() returns int language plpgsql as $$
begin raise insufficient_privilege using message = 'members only'; end $$;
create function test.bad_login() returns int language plpgsql as $$
begin raise invalid_authorization_specification using message = 'who are you'; end $$;
create function test.locked_fn() returns int language sql as $$ select 1 $$;
revoke execute on function test.locked_fn() from public;
grant execute on function test.not_allowed(), test.bad_login() to web_anon;

-- Authentication (cases/auth_*.case, auth_test.go). web_user is the role
-- tokens name; its own settings (statement_timeout, isolation) apply to its
-- requests. members is readable by web_user only, vault by no API role.
-- request_context shows SQL what the server set for the request.
create role web_user nologin;
grant web_user to authenticator;
grant usage on schema test to web_user;
alter role web_user set statement_timeout = '4s';
alter role web_user set default_transaction_isolation = 'repeatable read';
create table test.members (id int primary key, name text not null);
insert into test.members values (1, 'Ada'), (2, 'Grace');
grant select on test.members to web_user;
create table test.vault (id int primary key);
create function test.whoami() returns text stable language sql as $$ select current_user::text $$;
create function test.request_context() returns json stable language sql as $$
  select json_build_object(
    'role', current_user,
    'claims', current_setting('request.jwt.claims', true)::json,
    'method', current_setting('request.method', true),
    'path', current_setting('request.path', true),
    'custom_header', current_setting('request.headers', true)::json->>'x-custom',
    'host', current_setting('request.headers', true)::json->>'host',
    'cookie_header', current_setting('request.headers', true)::json->>'cookie',
    'cookies', current_setting('request.cookies', true)::json,
    'statement_timeout', current_setting('statement_timeout'),
    'isolation', current_setting('transaction_isolation'),
    'greeting', current_setting('app.settings.greeting', true))
$$;
-- db-pre-request in cases/auth_pre_request.case: marks every response, and
-- refuses requests that carry X-Block.
create function test.check_request() returns void language plpgsql as $$
begin
  perform set_config('response.headers', '[{"X-Checked":"yes"}]', true);
  if current_setting('request.headers', true)::json->>'x-block' = 'pay' then
    raise sqlstate 'PT402' using message = 'payment required';
  elsif current_setting('request.headers', true)::json->>'x-block' = 'deny' then
    raise insufficient_privilege using message = 'blocked by pre-request';
  end if;
end $$;
grant execute on function test.whoami(), test.request_context(), test.check_request() to web_anon, web_user;
-- Headers a function sets through response.headers (cases/response_headers.case):
-- the same name twice is sent twice; a name SVC also sets (Content-Type,
-- Vary) replaces SVC's value. typed_response is that file's db-pre-request.
create function test.set_cookie_twice() returns void stable language plpgsql as $$
begin
  perform set_config('response.headers',
    '[{"Set-Cookie":"sessionid=38afes7a8; HttpOnly; Path=/"},{"Set-Cookie":"theme=dark; Secure"}]', true);
end $$;
create function test.typed_response() returns void stable language plpgsql as $$
begin
  if current_setting('request.headers', true)::json->>'x-typed' = 'yes' then
    perform set_config('response.headers', '[{"Content-Type":"application/custom+json"},{"Vary":"X-Typed"}]', true);
  end if;
end $$;
grant execute on function test.set_cookie_twice(), test.typed_response() to web_anon, web_user;
-- transaction_context shows the transaction a request ran in
-- (transaction_test.go): its isolation level, whether it is read only, and
-- the session's application_name.
create function test.transaction_context() returns json stable language sql as $$
  select json_build_object('isolation', current_setting('transaction_isolation'),
    'read_only', current_setting('transaction_read_only'),
    'application_name', current_setting('application_name'))
$$;
grant execute on function test.transaction_context() to web_anon;
grant select on test.authors, test.books to web_user;
grant select, insert, update, delete on test.w_deferred to web_user;

-- Aggregates (cases/aggregates*.case). Customers place orders, orders hold
-- lines: agg_orders is many-to-one to agg_customers and one-to-many to
-- agg_lines. Dee has no orders; order 5 has no amount, order 6 no
-- customer; orders 3, 5 and 6 have no lines.
create table test.agg_customers (
  id integer primary key,
  name text not null,
  city text not null
);
create table test.agg_orders (
  id integer primary key,
  customer_id integer constraint agg_orders_customer_id_fkey references test.agg_customers(id),
  amount numeric(10,2),
  quantity integer not null,
  ordered date not null,
  meta jsonb not null
);
create table test.agg_lines (
  id integer primary key,
  order_id integer not null constraint agg_lines_order_id_fkey references test.agg_orders(id),
  product text not null,
  qty integer not null
);
insert into test.agg_customers values (1, 'Ann', 'Oslo'), (2, 'Bob', 'Lima'), (3, 'Cid', 'Oslo'), (4, 'Dee', 'Quito');
insert into test.agg_orders values
  (1, 1, 10.00, 2, '2024-01-05', '{"channel": "web", "score": 3}'),
  (2, 1, 25.50, 1, '2024-01-20', '{"channel": "shop", "score": 5}'),
  (3, 2, 7.25, 4, '2024-02-03', '{"channel": "web", "score": 1}'),
  (4, 3, 40.00, 3, '2024-02-03', '{"channel": "web", "score": 4}'),
  (5, 3, null, 1, '2024-03-15', '{"channel": "shop"}'),
  (6, null, 12.00, 2, '2024-03-15', '{"channel": "phone", "score": 2}');
insert into test.agg_lines values (1, 1, 'pen', 2), (2, 1, 'ink', 1), (3, 2, 'pad', 5), (4, 4, 'pen', 3);
grant select on test.agg_customers, test.agg_orders, test.agg_lines to web_anon;

-- OpenAPI root description (cases/openapi_*.case, openapi_validate_test.go):
-- comments, types, enum labels, defaults and keys the definitions show; a
-- view that takes no writes (oa_counts); a table web_anon may only insert
-- into (oa_inbox); a commented function and a volatile one.
create type test.oa_mood as enum ('happy', 'sad');
create table test.oa_owners (id integer primary key, name text not null);
create table test.oa_things (
  id integer generated always as identity primary key,
  code varchar(8) not null,
  label text not null default 'it''s unnamed',
  mood test.oa_mood,
  score numeric(5,2) default 1.5,
  rank integer not null default -1,
  active boolean not null default true,
  created timestamptz not null default now(),
  props jsonb default '{"a": 1}',
  tags text[] default '{}',
  owner_id integer references test.oa_owners(id)
);
comment on table test.oa_things is $$Things summary

Things described at length.$$;
comment on column test.oa_things.code is 'Short code';
comment on column test.oa_things.owner_id is 'Who owns it';
create view test.oa_counts as select mood, count(*) as n from test.oa_things group by mood;
create table test.oa_inbox (id integer primary key, body text);
create function test.oa_sum(a integer, b integer default 0) returns integer
  language sql stable as $$ select a + b $$;
comment on function test.oa_sum(integer, integer) is 'Adds two integers';
create function test.oa_bump(n integer) returns integer
  language sql volatile as $$ select n + 1 $$;
grant select, insert, update, delete on test.oa_things, test.oa_owners to web_anon;
grant select on test.oa_counts to web_anon;
grant insert on test.oa_inbox to web_anon;
-- db-root-spec (cases/openapi_root_spec.case): a function answering GET /.
create function test.oa_root(title text default 'Overridden') returns json
  language sql stable as $$ select json_build_object('swagger', '2.0', 'info', json_build_object('title', title)) $$;

-- Privileges matrix (cases/privileges.case): row-level security keeps each
-- user to their own notes (owner = the token's sub), web_user may not read
-- the secret column, web_anon may read no note at all. pm_notes_v is a
-- security_invoker view, so the caller's privileges and policies apply
-- through it; pm_all_notes is a (security invoker) function over the table.
create table test.pm_notes (id int primary key, owner text not null, body text, secret text);
insert into test.pm_notes values (1, 'u1', 'one', 's1'), (2, 'u2', 'two', 's2'), (3, 'u1', 'three', 's3');
alter table test.pm_notes enable row level security;
create policy pm_notes_own on test.pm_notes for select to web_user
  using (owner = current_setting('request.jwt.claims', true)::json->>'sub');
grant select (id, owner, body) on test.pm_notes to web_user;
create table test.pm_tags (id int primary key, note_id int references test.pm_notes (id), tag text);
insert into test.pm_tags values (1, 1, 'red'), (2, 2, 'blue'), (3, 3, 'green');
grant select on test.pm_tags to web_user, web_anon;
create view test.pm_notes_v with (security_invoker = true) as select id, owner, body from test.pm_notes;
grant select on test.pm_notes_v to web_user, web_anon;
create function test.pm_all_notes() returns setof test.pm_notes stable language sql as
  $$ select id, owner, body, null::text from test.pm_notes $$;
grant execute on function test.pm_all_notes() to web_user, web_anon;

-- PostgREST compatibility (postgrestjs_test.go with testdata/postgrest-js,
-- cases/compat_postgrest.case, compat_test.go). Schema js is exposed only
-- by those servers (db-schemas = test,js), so its objects and the rows
-- its tests write show nowhere else; postgrest_js_reset.sql refills its
-- tables. todos belong to lists (many-to-one, for embeds after writes) and
-- have a unique slug (for upserts). A list's kind is an enum of the
-- schema's own, which lists_of_kind takes and kind_of returns: statements
-- are prepared with its OID. raise_custom raises the custom error of the
-- SQLSTATE it is given ('SVC00', or 'PGRST' under compat-names =
-- postgrest); nap sleeps, for a client that gives up; pre_config is a
-- db-pre-config setting both namings' db_max_rows, of which a server reads
-- only its own. TestPostgrestJS drops schema js and runs the lines between
-- the begin and end markers again, as a migration recreating its objects.
-- begin schema js
create schema js;
grant usage on schema js to web_anon, authenticator;
create type js.list_kind as enum ('personal', 'shared');
create table js.lists (
  id integer primary key,
  name text not null,
  kind js.list_kind not null default 'personal'
);
create table js.todos (
  id serial primary key,
  list_id integer constraint todos_list_id_fkey references js.lists(id),
  slug text not null constraint todos_slug_key unique,
  title text not null,
  done boolean not null default false,
  priority integer not null default 3 constraint todos_priority_check check (priority between 1 and 5),
  tags text[] not null default '{}'
);
grant select, insert, update, delete on js.lists, js.todos to web_anon;
grant usage on sequence js.todos_id_seq to web_anon;
create function js.raise_custom(state text) returns integer language plpgsql as $$
begin
  raise exception using errcode = state,
    message = '{"code":"CART1","message":"Cart is empty","details":"nothing to pay","hint":"add an item"}',
    detail = '{"status":402,"headers":{"X-Cart":"empty"}}';
end $$;
create function js.nap(seconds float8) returns integer language sql as $$ select 1 from pg_sleep(seconds) $$;
create function js.pre_config() returns void language sql as $$
  select set_config('pgrst.db_max_rows', '2', true), set_config('svc.db_max_rows', '1', true) $$;
create function js.lists_of_kind(kind js.list_kind) returns setof js.lists stable language sql as
  $$ select * from js.lists where lists.kind = lists_of_kind.kind $$;
create function js.kind_of(list_id integer) returns js.list_kind stable language sql as
  $$ select kind from js.lists where id = list_id $$;
grant execute on function js.raise_custom(text), js.nap(float8), js.lists_of_kind(js.list_kind), js.kind_of(integer)
  to web_anon;
-- end schema js

-- A role's statement_timeout cancels its requests (cases/role_timeout.case):
-- web_hurried allows 200ms, and slow_call sleeps as long as it is asked.
-- Only web_hurried may call it, so it shows in no other role's API.
create role web_hurried nologin;
grant web_hurried to authenticator;
grant usage on schema test to web_hurried;
alter role web_hurried set statement_timeout = '200ms';
create function test.slow_call(seconds float8) returns integer language sql as $$ select 1 from pg_sleep(seconds) $$;
revoke execute on function test.slow_call(float8) from public;
grant execute on function test.slow_call(float8) to web_hurried;

-- A backend that works on after its client left (abandoned_test.go):
-- stubborn_nap sleeps as long as it is asked through cancel requests and
-- its connection closing, as a JIT compile does, which checks for neither.
-- Only web_stubborn may call it, so it shows in no other role's API.
create role web_stubborn nologin;
grant web_stubborn to authenticator;
grant usage on schema test to web_stubborn;
create function test.stubborn_nap(seconds float8) returns integer language plpgsql as $$
  declare
    until timestamptz := clock_timestamp() + make_interval(secs => seconds);
  begin
    perform set_config('client_connection_check_interval', '0', true);
    while clock_timestamp() < until loop
      begin
        perform pg_sleep(0.05);
      exception when query_canceled then
        null;
      end;
    end loop;
    return 1;
  end $$;
revoke execute on function test.stubborn_nap(float8) from public;
grant execute on function test.stubborn_nap(float8) to web_stubborn;

-- Computed fields (cases/computed_*.case): functions of one row that read
-- as columns. On books: a label (text), a flag, a jsonb document (for
-- paths), a tsvector and a length; on the view recent_books its decade.
-- display_name is overloaded for authors and clients, each its own.
-- private.shelf_code is one only with db-extra-search-path = private;
-- private.book_label never is, as test.book_label comes first on the path.
create function test.book_label(test.books) returns text
  language sql stable as $$ select $1.title || ' (' || $1.year || ')' $$;
create function test.is_classic(test.books) returns boolean
  language sql stable as $$ select 'classic' = any($1.tags) $$;
create function test.book_info(test.books) returns jsonb
  language sql stable as $$ select jsonb_build_object('pages', $1.pages, 'author', jsonb_build_object('id', $1.author_id)) $$;
create function test.book_words(test.books) returns tsvector
  language sql stable as $$ select to_tsvector('english', $1.title) $$;
create function test.title_length(test.books) returns integer
  language sql stable as $$ select length($1.title) $$;
create function test.decade(test.recent_books) returns integer
  language sql stable as $$ select $1.year / 10 * 10 $$;
create function test.display_name(test.authors) returns text
  language sql stable as $$ select 'author ' || $1.name $$;
create function test.display_name(test.clients) returns text
  language sql stable as $$ select 'client ' || $1.name $$;
create function private.shelf_code(test.books) returns text
  language sql stable as $$ select upper(left($1.title, 3)) || '-' || $1.id $$;
create function private.book_label(test.books) returns text
  language sql stable as $$ select 'shadowed' $$;
-- Writes with computed fields (cases/computed_writes.case; reset by
-- computed_reset.sql): label_of is overloaded for cf_notes and cf_tags,
-- so a write's rows must say which they are; urgent picks rows to change.
create table test.cf_notes (
  id integer primary key,
  body text not null,
  priority integer not null default 1
);
create table test.cf_tags (id integer primary key, tag text not null);
create function test.label_of(test.cf_notes) returns text
  language sql stable as $$ select 'note ' || $1.id || ': ' || $1.body $$;
create function test.label_of(test.cf_tags) returns text
  language sql stable as $$ select 'tag ' || $1.tag $$;
create function test.urgent(test.cf_notes) returns boolean
  language sql stable as $$ select $1.priority >= 5 $$;
grant select, insert, update, delete on test.cf_notes, test.cf_tags to web_anon;

-- Domain representations (cases/represent_*.case; dr_orders is reset by
-- represent_reset.sql). hexcolor is stored as an integer and reads and
-- writes as "#RRGGBB": its json output function is strict, so a null stays
-- null; filters accept "RRGGBB" or "#RRGGBB". stamp is a timestamptz that
-- reads and writes as Unix seconds, and its output function answers a null
-- as "never"; it has no text cast, so filters take timestamps as text.
create domain test.hexcolor as integer check (value between 0 and 16777215);
create function test.hexcolor_json(test.hexcolor) returns json
  language sql immutable strict as $$ select to_json('#' || lpad(upper(to_hex($1)), 6, '0')) $$;
create function test.hexcolor_from_text(text) returns test.hexcolor
  language sql immutable as $$ select ('x' || lpad(ltrim($1, '#'), 8, '0'))::bit(32)::integer::test.hexcolor $$;
create function test.hexcolor_from_json(json) returns test.hexcolor
  language sql immutable as $$ select test.hexcolor_from_text($1 #>> '{}') $$;
create cast (test.hexcolor as json) with function test.hexcolor_json(test.hexcolor) as implicit;
create cast (text as test.hexcolor) with function test.hexcolor_from_text(text) as implicit;
create cast (json as test.hexcolor) with function test.hexcolor_from_json(json) as implicit;
create domain test.stamp as timestamptz;
create function test.stamp_json(test.stamp) returns json
  language sql immutable as $$ select coalesce(to_json(extract(epoch from $1)::bigint), '"never"') $$;
create function test.stamp_from_json(json) returns test.stamp
  language sql immutable as $$ select to_timestamp(($1 #>> '{}')::numeric)::test.stamp $$;
create cast (test.stamp as json) with function test.stamp_json(test.stamp) as implicit;
create cast (json as test.stamp) with function test.stamp_from_json(json) as implicit;
create table test.dr_paints (
  id integer primary key,
  name text not null,
  color test.hexcolor,
  dried test.stamp
);
insert into test.dr_paints values
  (1, 'Crimson', 16711680, '2024-01-01 00:00:00+00'),
  (2, 'Navy', 128, null),
  (3, 'Unmixed', null, '2024-06-01 12:00:00+00');
-- A view with a column computed over the domain, and a computed field
-- returning the domain.
create view test.dr_paints_v as
  select id, name, color, (color / 2)::test.hexcolor as dark from test.dr_paints;
create function test.shade(test.dr_paints) returns test.hexcolor
  language sql stable as $$ select ($1.color / 4)::test.hexcolor $$;
create table test.dr_jobs (
  id integer primary key,
  room text not null,
  paint_id integer constraint dr_jobs_paint_id_fkey references test.dr_paints(id)
);
insert into test.dr_jobs values (1, 'hall', 1), (2, 'study', 2), (3, 'attic', 3);
-- Written by cases/represent_writes.case; dr_orders_v takes writes too.
create table test.dr_orders (
  id integer primary key,
  color test.hexcolor not null default 0,
  due test.stamp,
  note text
);
create view test.dr_orders_v as select id, color, due from test.dr_orders;
grant select on test.dr_paints, test.dr_paints_v, test.dr_jobs to web_anon;
grant select, insert, update, delete on test.dr_orders, test.dr_orders_v to web_anon;

-- Full-text search on columns that are not tsvector
-- (cases/fts_columns.case): text, varchar, json and jsonb, a tsvector
-- domain, and computed fields returning tsvector and text.
create domain test.search_vector as tsvector;
create table test.articles (
  id integer primary key,
  title varchar(60) not null,
  body text,
  meta json,
  extra jsonb,
  search test.search_vector
);
insert into test.articles values
  (1, 'Rats in the city', 'Fat cats ate the rats', '{"topic": "city animals"}', '{"lang": "english", "note": "impossible things"}',
    to_tsvector('english', 'fat cats ate the rats')),
  (2, 'Gardening', 'Planting roses is possible in spring', '{"topic": "flowers"}', '{"note": "easy"}',
    to_tsvector('english', 'planting roses is possible in spring')),
  (3, 'Unmögliche Dinge', 'Es ist eine Art Spaß, das Unmögliche zu machen', null, null, null);
create function test.article_words(test.articles) returns tsvector
  language sql stable as $$ select to_tsvector('simple', $1.title) $$;
create function test.article_summary(test.articles) returns text
  language sql stable as $$ select $1.title || ': ' || coalesce($1.body, '') $$;
grant select on test.articles to web_anon;

-- The read grammar's corners (cases/read_grammar.case): JSON arrays and
-- keys with special characters, array and range columns inside logic
-- trees, names with quotes and commas inside in-lists.
create table test.gr_docs (
  id integer primary key,
  name text,
  data jsonb,
  arr integer[],
  span int4range
);
insert into test.gr_docs values
  (1, 'alpha', '[1, 2, 3]', '{1,2,3}', '[1,5)'),
  (2, 'beta', '[4, 5, 6]', '{1,2}', '[10,20)'),
  (3, '"', '[[7, 8], {"a": "A"}]', '{3}', null),
  (4, 'say "hi"', '{"c": [{"d": [4, 5, 6, 7, 8]}]}', null, '[3,4)'),
  (5, 'Windows 7', '{"!@#$%^&*_d": {"!@#$%^&*_e": 3}, "23-xy": 1}', '{}', '[1,2)');
grant select on test.gr_docs to web_anon;

-- Three levels of to-one embeds, each holding a "name", analyzed so the
-- planner picks its joins from their sizes (cases/embed_sql_names.case).
create table test.gr_top (id integer primary key, name text);
create table test.gr_mid (id integer primary key, name text, top_id integer references test.gr_top(id));
create table test.gr_low (id integer primary key, name text, mid_id integer references test.gr_mid(id));
insert into test.gr_top values (1, 'top 1'), (2, 'top 2'), (3, 'top 3'), (4, null);
insert into test.gr_mid values (1, 'mid 1', 1), (2, 'mid 2', 1), (3, 'mid 3', 2), (4, 'mid 4', 1), (5, 'mid 5', 1), (6, 'mid 6', 2);
insert into test.gr_low values (1, 'low 1', 1), (2, 'low 2', 1), (3, 'low 3', 2), (4, 'low 4', 2), (5, 'low 5', 2);
analyze test.gr_top, test.gr_mid, test.gr_low;
grant select on test.gr_top, test.gr_mid, test.gr_low to web_anon;

-- Function calls (cases/rpc_calls.case): character and bit arguments,
-- whose declared lengths a function does not keep; a set of records.
create function test.gr_padded(c char(4), cs char(4)[], b bit(4)) returns text
  immutable language sql as $$ select $1 || '/' || array_to_string($2, ',') || '/' || $3::text $$;
create function test.gr_pairs() returns setof record
  immutable language sql as $$ select * from (values (1, 'one'), (2, 'two')) as t(n, word) $$;
grant execute on function test.gr_padded(char, char[], bit), test.gr_pairs() to web_anon;
create function test.gr_below(id integer) returns setof test.gr_top
  stable language sql as $$ select * from test.gr_top where gr_top.id < $1 $$;
grant execute on function test.gr_below(integer) to web_anon;
-- Overloads beside a whole-body fallback, and two fallbacks for one body.
create function test.gr_fallback() returns integer immutable language sql as $$ select 1 $$;
create function test.gr_fallback(x integer, y integer) returns integer immutable language sql as $$ select x + y $$;
create function test.gr_fallback(json) returns json immutable language sql as $$ select $1 $$;
create function test.gr_both(json) returns text immutable language sql as $$ select 'json' $$;
create function test.gr_both(jsonb) returns text immutable language sql as $$ select 'jsonb' $$;
grant execute on function test.gr_fallback(), test.gr_fallback(integer, integer), test.gr_fallback(json),
  test.gr_both(json), test.gr_both(jsonb) to web_anon;
-- A function returning a domain over a table's type returns its rows.
create domain test.gr_top_row as test.gr_top;
create function test.gr_tops() returns setof test.gr_top_row
  stable language sql as $$ select t::test.gr_top_row from test.gr_top t where t.id <= 2 $$;
grant execute on function test.gr_tops() to web_anon;

-- EXPLAIN VERBOSE shows a query identifier only where the server computes
-- one (compute_query_id, or pg_stat_statements loaded); plan_options.case
-- shows that the verbose plan option passes it on.
do $$ begin execute format('alter database %I set compute_query_id = on', current_database()); end $$;
-- Media type handlers (cases/media_handlers*.case): domains named after
-- media types; aggregates over one relation's rows or over any rows that
-- return one; functions returning one.
create domain test."text/plain" as text;
create domain test."text/html" as text;
create domain test."text/xml" as xml;
create domain test."image/png" as bytea;
create domain test."application/octet-stream" as bytea;
create domain test."text/x-rows" as text;
create domain test."application/json" as json;
create domain test."application/geo+json" as json;
create domain test."text/csv" as text;
create domain test."application/vnd.svc.object" as json;
create domain test."*/*" as bytea;
create table test.mh_notes (id integer primary key, body text, extra text);
insert into test.mh_notes values (1, 'alpha', 'x'), (2, 'beta', null), (3, 'gamma', 'z');
create table test.mh_numbers (val integer primary key);
insert into test.mh_numbers values (1), (2), (3);
grant select on test.mh_notes, test.mh_numbers to web_anon;
-- Any relation's rows, one composite text form a line.
create function test.mh_rows_step(state test."text/x-rows", next anyelement) returns test."text/x-rows"
  immutable language sql as $$ select (state || next::text || e'\n')::test."text/x-rows" $$;
create aggregate test.mh_rows(anyelement) (stype = test."text/x-rows", sfunc = test.mh_rows_step, initcond = '');
-- mh_notes has its own text/x-rows (bodies only), json, geo+json and csv.
create function test.mh_notes_step(state test."text/x-rows", next test.mh_notes) returns test."text/x-rows"
  immutable language sql as $$ select (state || upper(next.body) || ';')::test."text/x-rows" $$;
create aggregate test.mh_notes_rows(test.mh_notes) (stype = test."text/x-rows", sfunc = test.mh_notes_step, initcond = '');
create function test.mh_json_step(state test."application/json", next test.mh_notes) returns test."application/json"
  immutable language sql as $$ select json_build_object('notes', (state->>'notes')::int + 1)::test."application/json" $$;
create aggregate test.mh_notes_json(test.mh_notes) (stype = test."application/json", sfunc = test.mh_json_step,
  initcond = '{"notes": 0}');
create function test.mh_geo_step(state jsonb, next test.mh_notes) returns jsonb
  immutable language sql as $$ select state || jsonb_build_object('type', 'Feature', 'id', next.id) $$;
create function test.mh_geo_final(state jsonb) returns test."application/geo+json"
  immutable language sql as $$ select json_build_object('type', 'FeatureCollection', 'features', state)::test."application/geo+json" $$;
create aggregate test.mh_notes_geo(test.mh_notes) (stype = jsonb, sfunc = test.mh_geo_step,
  finalfunc = test.mh_geo_final, initcond = '[]');
create function test.mh_csv_step(state text, next test.mh_notes) returns text
  immutable language sql as $$ select state || next.id || ';' || next.body || e'\n' $$;
create function test.mh_csv_final(data text) returns test."text/csv" language plpgsql as $$
begin
  perform set_config('response.headers', '[{"Content-Disposition": "attachment; filename=\"notes.csv\""}]', true);
  return ('id;body' || e'\n' || data)::test."text/csv";
end $$;
create aggregate test.mh_notes_csv(test.mh_notes) (stype = text, sfunc = test.mh_csv_step,
  finalfunc = test.mh_csv_final, initcond = '');
-- text/x-framing sets the header the request's X-Framing-Name and
-- X-Framing-Value name (functionheaders_test.go).
create domain test."text/x-framing" as text;
create function test.mh_framing_step(state test."text/x-framing", next test.mh_notes) returns test."text/x-framing"
  immutable language sql as $$ select (state || next.body)::test."text/x-framing" $$;
create function test.mh_framing_final(data test."text/x-framing") returns test."text/x-framing" language plpgsql as $$
declare
  h json := current_setting('request.headers', true)::json;
begin
  perform set_config('response.headers',
    json_build_array(json_build_object(h->>'x-framing-name', h->>'x-framing-value'))::text, true);
  return data;
end $$;
create aggregate test.mh_notes_framing(test.mh_notes) (stype = test."text/x-framing", sfunc = test.mh_framing_step,
  finalfunc = test.mh_framing_final, initcond = '');
-- SVC's vendor types are its own: these never answer.
create function test.mh_object_step(state test."application/vnd.svc.object", next anyelement)
  returns test."application/vnd.svc.object" immutable language sql as $$ select '"taken over"'::test."application/vnd.svc.object" $$;
create aggregate test.mh_object(anyelement) (stype = test."application/vnd.svc.object", sfunc = test.mh_object_step);
-- mh_numbers answers any Accept, naming its media type when it knows it.
create function test.mh_any_step(state test."*/*", next test.mh_numbers) returns test."*/*"
  immutable language sql as $$ select (state || convert_to(next.val::text, 'UTF8'))::test."*/*" $$;
create function test.mh_any_final(data test."*/*") returns test."*/*" language plpgsql as $$
declare
  accept text := current_setting('request.headers', true)::json->>'accept';
begin
  if accept = 'magic/number' then
    perform set_config('response.headers', json_build_array(json_build_object('Content-Type', accept))::text, true);
    return ('magic:' || data)::test."*/*";
  end if;
  return ('numbers:' || data)::test."*/*";
end $$;
create aggregate test.mh_numbers_any(test.mh_numbers) (stype = test."*/*", sfunc = test.mh_any_step,
  finalfunc = test.mh_any_final, initcond = '');
-- Functions returning a media type, or text, xml, bytea.
create function test.mh_hello() returns test."text/plain"
  stable language sql as $$ select 'Hello, handlers'::test."text/plain" $$;
create function test.mh_page() returns test."text/html"
  stable language sql as $$ select '<h1>Hi</h1>'::test."text/html" $$;
create function test.mh_doc() returns test."text/xml"
  stable language sql as $$ select '<doc>1</doc>'::test."text/xml" $$;
create function test.mh_logo(id integer) returns test."image/png"
  stable language sql as $$ select convert_to('PNG#' || id, 'UTF8')::test."image/png" where id > 0 $$;
create function test.mh_greetings() returns setof test."text/plain"
  stable language sql as $$ select 'one'::test."text/plain" union all select 'two' $$;
create function test.mh_any() returns test."*/*"
  stable language sql as $$ select convert_to('anything', 'UTF8')::test."*/*" $$;
create function test.mh_choose() returns test."*/*" language plpgsql stable as $$
declare
  accept text := current_setting('request.headers', true)::json->>'accept';
begin
  if accept in ('app/chico', 'app/harpo') then
    perform set_config('response.headers', json_build_array(json_build_object('Content-Type', accept))::text, true);
    return convert_to(split_part(accept, '/', 2), 'UTF8')::test."*/*";
  end if;
  raise sqlstate 'PT406' using message = 'Not Acceptable';
end $$;
create function test.mh_text() returns text stable language sql as $$ select 'plain words' $$;
create function test.mh_xml() returns xml stable language sql as $$ select '<w>words</w>'::xml $$;
create function test.mh_bytes() returns bytea stable language sql as $$ select convert_to('raw bytes', 'UTF8') $$;
create function test.mh_echo_text(text) returns test."text/plain"
  immutable language sql as $$ select $1::test."text/plain" $$;
create function test.mh_echo_xml(xml) returns test."text/xml"
  immutable language sql as $$ select $1::test."text/xml" $$;
create function test.mh_echo_bytes(bytea) returns test."application/octet-stream"
  immutable language sql as $$ select $1::test."application/octet-stream" $$;
create function test.mh_all_notes() returns setof test.mh_notes
  stable language sql as $$ select * from test.mh_notes $$;
create function test.mh_note_words(test.mh_notes) returns integer
  immutable language sql as $$ select length($1.body) $$;
-- dr_paints, whose columns have domain representations, has its own
-- text/x-rows: the stored values.
create function test.mh_paint_step(state test."text/x-rows", next test.dr_paints) returns test."text/x-rows"
  immutable language sql as $$ select (state || next.name || '=' || coalesce(next.color::integer::text, '-') || ';')::test."text/x-rows" $$;
create aggregate test.mh_paints_rows(test.dr_paints) (stype = test."text/x-rows", sfunc = test.mh_paint_step, initcond = '');

-- Domains with checks, described by the OpenAPI 3.1 document
-- (openapi31_domains_test.go): a positive integer, a bounded text, a
-- NOT NULL pattern, an IN list, a domain over the positive one, one whose
-- check JSON Schema cannot state, a price between bounds, and a function
-- taking and returning one.
create domain test.dm_posint as integer check (value > 0);
create domain test.dm_name as text check (char_length(value) between 1 and 20);
create domain test.dm_code as text not null check (value ~ '^[A-Z]{3}[0-9]+$');
create domain test.dm_size as text check (value in ('S', 'M', 'L'));
create domain test.dm_small as test.dm_posint check (value < 100);
create domain test.dm_lower as text check (lower(value) = value);
create domain test.dm_price as numeric(8,2) check (value >= 0 and value <= 1000);
comment on domain test.dm_lower is 'A word in lower case.';
create table test.dm_items (
  id integer primary key,
  qty test.dm_posint,
  name test.dm_name,
  code test.dm_code,
  size test.dm_size,
  small test.dm_small,
  word test.dm_lower,
  price test.dm_price
);
insert into test.dm_items values (1, 3, 'bolt', 'ABC1', 'M', 9, 'steel', 0.5);
create function test.dm_double(n test.dm_posint) returns test.dm_posint
  immutable language sql as $$ select ($1 * 2)::test.dm_posint $$;
grant select, insert on test.dm_items to web_anon;
