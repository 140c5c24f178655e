-- Server version, and which of the exposed schemas ($1) do not exist: a
-- mistyped schema name must fail the dump rather than serve nothing.
select
  current_setting('server_version'),
  current_setting('server_version_num')::int,
  array(
    select s
    from unnest($1::text[]) with ordinality as u(s, ord)
    where not exists (select from pg_namespace n where n.nspname = u.s)
    order by u.ord
  )
