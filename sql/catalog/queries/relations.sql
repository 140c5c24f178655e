-- Relations of the exposed schemas ($1). Partitions are left out: callers
-- reach their rows through the partitioned parent.
select
  c.oid,
  c.reltype,
  n.nspname::text,
  c.relname::text,
  c.relkind::text,
  pg_get_userbyid(c.relowner)::text,
  coalesce(d.description, ''),
  -- Bit mask of pg_relation_is_updatable (8 insert, 4 update, 16 delete);
  -- tables take every write, so spare the function call for them.
  case when c.relkind in ('r', 'p') then 28 else pg_relation_is_updatable(c.oid, true) end,
  g.grants
from pg_class c
join pg_namespace n on n.oid = c.relnamespace
left join pg_description d
  on d.objoid = c.oid and d.classoid = 'pg_class'::regclass and d.objsubid = 0
-- A NULL acl stands for the default one: the owner holds every privilege.
cross join lateral (select coalesce(c.relacl, acldefault('r', c.relowner))) acl(items)
--@ grants.sql
where n.nspname = any($1)
  and c.relkind in ('r', 'v', 'm', 'f', 'p')
  and not c.relispartition
