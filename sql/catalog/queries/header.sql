-- Server version, which of the exposed schemas ($1) do not exist (a
-- mistyped schema name must not go unnoticed), and the schemas that do,
-- for suggesting the one meant.
select
  current_setting('server_version'),
  current_setting('server_version_num')::int,
  array(
    select s
    from unnest($1::text[]) with ordinality as u(s, ord)
    where not exists (select from pg_namespace n where n.nspname = u.s)
    order by u.ord
  ),
  array(
    select n.nspname::text
    from pg_namespace n
    where n.nspname !~ '^pg_' and n.nspname <> 'information_schema'
    order by 1
  )
