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
