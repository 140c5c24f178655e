-- Fixture for the catalog tests: one object per behaviour Introspect must
-- get right. Exposed schema: api. Extra search path: private. Schema hidden
-- is neither, so views chained through it trace to nothing.

-- Roles are cluster-wide; tolerate a server where they already exist.
do $$
begin
  if not exists (select from pg_roles where rolname = 'cat_anon') then create role cat_anon nologin; end if;
  if not exists (select from pg_roles where rolname = 'cat_user') then create role cat_user nologin; end if;
  if not exists (select from pg_roles where rolname = 'cat_admin') then create role cat_admin nologin noinherit; end if;
end $$;
grant cat_anon to cat_user;
grant cat_user, cat_anon to cat_admin;
alter role cat_user set statement_timeout = '5s';
alter role cat_user set work_mem = '4MB';
-- Not settable by the role itself: left out of the snapshot. A custom
-- setting is kept.
alter role cat_user set log_min_duration_statement = '1s';
alter role cat_user set app.tenant = 'acme';
do $$ begin
  execute format('alter role cat_user in database %I set work_mem = %L', current_database(), '8MB');
end $$;

create schema api;
create schema private;
create schema hidden;

create type api.mood as enum ('sad', 'ok', 'happy');
create domain api.feeling as api.mood;
create domain api.short_text as varchar(20);
create domain api.nick as api.short_text;

create table api.authors (
  id integer generated always as identity primary key,
  name varchar(20) not null,
  email text unique,
  mood api.feeling,
  nick api.nick,
  created_at timestamptz not null default now(),
  name_upper text generated always as (upper(name)) stored
);
comment on table api.authors is 'People who write';
comment on column api.authors.name is 'Full name';
create unique index authors_email_partial on api.authors (email) where email is not null;

create table api.books (
  id serial primary key,
  title text not null,
  author_id integer not null references api.authors (id)
);
create unique index books_title_idx on api.books (title) include (author_id);
create unique index books_lower_title_idx on api.books (lower(title));

-- One-to-one: the foreign key is the whole primary key.
create table api.author_profiles (
  author_id integer primary key references api.authors (id),
  bio text
);

create table api.employees (
  id integer primary key,
  manager_id integer references api.employees (id)
);

-- One-to-one through a unique constraint rather than the primary key.
create table api.passports (
  id integer primary key,
  employee_id integer not null unique references api.employees (id)
);
-- A self many-to-many: both junction keys point at employees.
create table api.friendships (
  a integer references api.employees (id),
  b integer references api.employees (id),
  since date,
  primary key (a, b)
);

create table api.tags (
  id integer primary key,
  label text not null,
  constraint tags_label_key unique (label)
);

-- Junction: both foreign keys inside the composite primary key.
create table api.book_tags (
  book_id integer references api.books (id),
  tag_id integer references api.tags (id),
  primary key (book_id, tag_id)
);

create table api.sensors (id integer primary key);
create table api.measurements (
  id integer,
  taken date not null,
  sensor_id integer references api.sensors (id),
  value numeric(8, 3),
  primary key (id, taken)
) partition by range (taken);
create table api.measurements_2024 partition of api.measurements
  for values from ('2024-01-01') to ('2025-01-01');

create table private.orders (
  id integer primary key,
  book_id integer not null references api.books (id),
  qty integer not null
);
create table hidden.notes (id integer primary key);

-- A private base table behind an exposed view, its key renamed.
create view api.orders as select id as order_id, book_id, qty from private.orders;
-- Renamed columns, then a view over that view.
create view api.book_list as select id, title as book_title, author_id as writer from api.books;
create view api.book_list_short as select id, writer from api.book_list;
-- Renamed after creation: the query tree keeps the old name, pg_attribute the new.
alter view api.book_list_short rename column writer to author;
-- A join of two tables.
create view api.books_with_authors as
  select b.id as book_id, b.title, a.id as author_id, a.name as author_name
  from api.books b join api.authors a on a.id = b.author_id;
-- A CTE and a subquery in FROM.
create view api.recent_orders as
  with r as (select * from private.orders where qty > 0)
  select s.id, s.book_id, 1 as one from (select * from r) s;
-- A chain through a view in the extra search path, and one through a view in
-- a schema that is neither exposed nor searched.
create view private.big_orders as select id, book_id from private.orders where qty > 10;
create view api.big_orders as select id, book_id from private.big_orders;
create view hidden.orders_v as select id, book_id from private.orders;
create view api.hidden_orders as select id, book_id from hidden.orders_v;

create materialized view api.author_stats as
  select author_id, count(*) as n from api.books group by author_id;
create unique index author_stats_author_id_idx on api.author_stats (author_id);

grant select on api.authors to cat_anon;
grant select, insert, update on api.books to cat_user;
grant select (id, label), update (label) on api.tags to cat_anon;

-- One function per return shape.
create function api.add(a integer, b integer default 1) returns integer
  language sql immutable as 'select a + b';
create function api.add(a numeric, b numeric) returns numeric
  language sql immutable as 'select a + b';
create function api.noop() returns void language sql as '';
comment on function api.noop() is 'Does nothing';
create function api.top_author() returns api.authors
  language sql stable as 'select * from api.authors order by id limit 1';
create function api.all_books() returns setof api.books
  language sql stable as 'select * from api.books';
create function api.titles() returns setof text
  language sql stable as 'select title from api.books';
create function api.pair(out x integer, out y integer)
  language sql immutable as 'select 1, 2';
create function api.single_out(a integer, out doubled integer)
  language sql immutable as 'select a * 2';
create function api.ranked(n integer) returns table (pos bigint, title text)
  language sql stable as 'select row_number() over (), title from api.books limit n';
create function api.anything() returns record
  language sql immutable as 'select 1, 2';
create function api.sum_all(variadic nums integer[]) returns integer
  language sql immutable as 'select sum(x)::integer from unnest(nums) x';
create function api.slow(inout n integer, label text default 'x') returns integer
  language sql volatile set statement_timeout = '1s' as 'select n';
revoke execute on function api.slow(integer, text) from public;
grant execute on function api.slow(integer, text) to cat_user;

-- Computed relationships: to-one (not SETOF; SETOF with ROWS 1) and to-many.
create function api.first_book(api.authors) returns api.books
  language sql stable as 'select * from api.books where author_id = $1.id order by id limit 1';
create function api.best_book(api.authors) returns setof api.books rows 1
  language sql stable as 'select * from api.books where author_id = $1.id limit 1';
create function api.written(api.authors) returns setof api.books rows 10
  language sql stable as 'select * from api.books where author_id = $1.id';
create function api.colleagues(api.employees) returns setof api.employees
  language sql stable as 'select * from api.employees where manager_id = $1.manager_id';

-- Not functions SVC can call: a procedure and a trigger function.
create procedure api.do_nothing() language sql as '';
create function api.touch() returns trigger language plpgsql as 'begin return new; end';

-- A data representation: a function-backed cast from a domain.
create domain api.color as text;
create function api.color_to_json(api.color) returns json
  language sql immutable as 'select to_json($1::text)';
create cast (api.color as json) with function api.color_to_json(api.color) as implicit;
-- The parsers of the same domain: from a request body's JSON and from a
-- filter's text. A cast that is not implicit is no representation.
create function api.color_from_json(json) returns api.color
  language sql immutable as 'select ($1 #>> ''{}'')::api.color';
create cast (json as api.color) with function api.color_from_json(json) as implicit;
create function api.color_from_text(text) returns api.color
  language sql immutable as 'select lower($1)::api.color';
create cast (text as api.color) with function api.color_from_text(text) as implicit;
create domain api.code as integer;
create function api.code_to_json(api.code) returns json
  language sql immutable as 'select to_json($1::integer)';
create cast (api.code as json) with function api.code_to_json(api.code) as assignment;

-- Computed fields: functions of one row returning one value, found in the
-- relation's schema, then in the extra search path (private), whose
-- initials api.initials hides. first_book (a composite) is also a to-one
-- computed relationship. Not computed fields: a function named like a
-- column (name), of two arguments, returning a set, or in schema hidden.
create function api.initials(api.authors) returns text
  language sql stable as 'select left($1.name, 1)';
create function private.initials(api.authors) returns text
  language sql stable as 'select ''?''';
create function private.shout(api.authors) returns text
  language sql stable as 'select upper($1.name)';
create function api.shade(api.authors) returns api.color
  language sql stable as 'select ''Red''::api.color';
create function api.label_words(api.book_list) returns tsvector
  language sql stable as 'select to_tsvector($1.book_title)';
create function api.tag_ids(api.books) returns integer[]
  language sql stable as 'select array[1, 2]';
create function api.name(api.authors) returns text
  language sql stable as 'select ''hidden by the column''';
create function api.scaled(api.books, factor integer) returns integer
  language sql stable as 'select $1.id * factor';
create function api.aliases(api.authors) returns setof text
  language sql stable as 'select $1.name';
create function hidden.secret(api.authors) returns text
  language sql stable as 'select ''not on the search path''';
