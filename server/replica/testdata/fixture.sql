-- Replica fixture: what tests of routing, read-your-writes, snapshots and
-- RLS on replicas read. Functions and views returning pg_is_in_recovery()
-- show where a request ran: true on a standby, false on the primary.
create role web_anon nologin;
create role reader nologin;
create role strict_reader nologin;
alter role strict_reader set default_transaction_isolation = 'serializable';
create role authenticator login noinherit;
grant web_anon, reader, strict_reader to authenticator;

create schema api;
grant usage on schema api to web_anon, reader, strict_reader;

create view api.whereami as
  select pg_is_in_recovery() as standby, inet_server_port() as port;

create function api.where_stable() returns boolean stable language sql as 'select pg_is_in_recovery()';
create function api.where_immutable() returns boolean immutable language sql as 'select pg_is_in_recovery()';
create function api.where_volatile() returns boolean volatile language sql as 'select pg_is_in_recovery()';
-- db-pre-request candidates: one that may write (VOLATILE, the default),
-- one declared not to.
create function api.pre_volatile() returns void language sql as '';
create function api.pre_stable() returns void stable language sql as '';

create table api.notes (
  id serial primary key,
  body text not null
);
create view api.notes_where as
  select n.id, n.body, pg_is_in_recovery() as standby from api.notes n;

-- What a request's transaction sees of its role and settings.
create view api.context as
  select current_user as role,
    current_setting('request.method') as method,
    current_setting('request.path') as path,
    current_setting('request.jwt.claims', true)::json->>'sub' as sub,
    current_setting('app.settings.greeting', true) as greeting,
    current_setting('search_path') as search_path,
    current_setting('transaction_isolation') as isolation;

-- Rows each caller sees by the sub claim of its token.
create table api.letters (
  id integer primary key,
  owner text not null,
  body text not null
);
alter table api.letters enable row level security;
create policy own_letters on api.letters for select to reader
  using (owner = current_setting('request.jwt.claims', true)::json->>'sub');
create view api.letters_where with (security_invoker = true) as
  select l.*, pg_is_in_recovery() as standby from api.letters l;
insert into api.letters values (1, 'alice', 'to alice'), (2, 'bob', 'to bob'), (3, 'alice', 'again to alice');

grant select on all tables in schema api to web_anon, reader, strict_reader;
grant insert on api.notes, api.notes_where to web_anon;
grant usage on sequence api.notes_id_seq to web_anon;

-- Read by the benchmarks.
create table api.items (
  id integer primary key,
  name text not null
);
insert into api.items select i, 'item ' || i from generate_series(1, 1000) as i;
grant select on api.items to web_anon;
