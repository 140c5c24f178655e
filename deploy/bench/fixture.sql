-- Load-test fixture: 10,000 categories and 1,000,000 items (100 per
-- category) in schema "bench", read by the anonymous role bench_anon
-- through the authenticator role.
create role bench_anon nologin;
create role authenticator login noinherit;
grant bench_anon to authenticator;
create schema bench;
grant usage on schema bench to bench_anon;
-- Only for pgbench -M prepared, which prepares its whole script up front,
-- before the script's own role switch. SVC does not need it.
grant usage on schema bench to authenticator;

create table bench.categories (
  id integer primary key,
  name text not null
);
insert into bench.categories select i, 'category ' || i from generate_series(0, 9999) i;

create table bench.items (
  id integer primary key,
  category integer not null,
  name text not null,
  price numeric(10, 2) not null,
  created_at timestamptz not null
);
insert into bench.items
  select i, i % 10000, 'item ' || i, (i % 997) + 0.99, '2026-01-01'::timestamptz + i * interval '1 minute'
  from generate_series(1, 1000000) i;
-- Added after loading: one validating scan instead of a trigger per row.
alter table bench.items add constraint items_category_fkey foreign key (category) references bench.categories;
create index items_category_id on bench.items (category, id);
grant select on bench.categories, bench.items to bench_anon;
vacuum analyze bench.categories, bench.items;
