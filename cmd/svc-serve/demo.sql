-- Sample schema for `svc-serve demo`: a small library exposed in schema
-- "api" to the anonymous role web_anon, reached through authenticator.
create role web_anon nologin;
create role authenticator login noinherit;
grant web_anon to authenticator;

create schema api;
grant usage on schema api to web_anon;

create table api.authors (
  id integer generated always as identity primary key,
  name text not null,
  born date
);
comment on table api.authors is 'People who wrote books';

create table api.books (
  id integer generated always as identity primary key,
  title text not null,
  year integer,
  author_id integer not null references api.authors(id)
);

create table api.reviews (
  id integer generated always as identity primary key,
  book_id integer not null references api.books(id),
  stars integer not null check (stars between 1 and 5),
  body text
);

create view api.books_by_decade as
  select (year / 10) * 10 as decade, count(*) as books from api.books group by 1 order by 1;

-- A computed field: books gain a "decade" column clients may select,
-- filter and order by.
create function api.decade(api.books) returns integer
  language sql immutable as $$ select ($1.year / 10) * 10 $$;

create function api.book_count(author_id integer) returns bigint
  language sql stable as $$ select count(*) from api.books b where b.author_id = book_count.author_id $$;

insert into api.authors (name, born) values
  ('Frank Herbert', '1920-10-08'), ('Ursula K. Le Guin', '1929-10-21'), ('Octavia E. Butler', '1947-06-22');
insert into api.books (title, year, author_id) values
  ('Dune', 1965, 1), ('Children of Dune', 1976, 1),
  ('The Left Hand of Darkness', 1969, 2), ('The Dispossessed', 1974, 2),
  ('Kindred', 1979, 3), ('Parable of the Sower', 1993, 3);
insert into api.reviews (book_id, stars, body) values
  (1, 5, 'A classic.'), (1, 4, null), (3, 5, 'Still fresh.'), (5, 5, null);

grant select on all tables in schema api to web_anon;
grant execute on function api.book_count(integer) to web_anon;

-- A role for writes: requests carrying a token whose role claim is
-- "writer" run as it (svc-serve demo prints one).
create role writer nologin;
grant writer to authenticator;
grant usage on schema api to writer;
grant select on all tables in schema api to writer;
grant insert, update on api.books, api.reviews to writer;
grant execute on function api.book_count(integer) to writer;
