-- Computed fields: functions taking one row of a relation of the exposed
-- schemas ($1) and returning one value. Functions returning a set embed as
-- computed relationships instead; a bare record has no columns to show.
-- PostgREST finds them through the request's search path, so they count
-- in the relation's own schema and in db-extra-search-path ($2); rank says
-- where on that path (0 for the relation's schema), since the first wins.
with recursive
--@ resolved_domains.sql
select
  c.oid,
  n.nspname::text,
  p.proname::text,
  format_type(p.prorettype, null),
  case when r.oid is not null then format_type(r.base, r.basemod) end,
  case when n.oid = c.relnamespace then 0 else array_position($2::text[], n.nspname::text) end
from pg_proc p
join pg_namespace n on n.oid = p.pronamespace
join pg_class c on c.reltype = p.proargtypes[0]
join pg_namespace cn on cn.oid = c.relnamespace
left join resolved r on r.oid = p.prorettype
where p.pronargs = 1
  and p.prokind = 'f'
  and not p.proretset
  and p.prorettype not in ('void'::regtype, 'record'::regtype, 'trigger'::regtype, 'event_trigger'::regtype)
  and cn.nspname = any($1)
  and c.relkind in ('r', 'v', 'm', 'f', 'p')
  and not c.relispartition
  and (n.oid = c.relnamespace or n.nspname = any($2))
