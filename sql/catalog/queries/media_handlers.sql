-- Media type handlers: aggregates of the exposed schemas ($1) whose result
-- type is a domain named after a media type ("text/html", "*/*"), taking
-- one argument, a relation's row type or anyelement (PostgREST's rule).
-- The domain's send function (its base type's, which a domain inherits)
-- turns the aggregate's value into the body's bytes.
select
  lower(t.typname::text),
  sn.nspname::text,
  s.proname::text,
  n.nspname::text,
  p.proname::text,
  coalesce(rn.nspname::text, ''),
  coalesce(r.relname::text, '')
from pg_proc p
join pg_namespace n on n.oid = p.pronamespace
join pg_type t on t.oid = p.prorettype
join pg_proc s on s.oid = t.typsend
join pg_namespace sn on sn.oid = s.pronamespace
left join pg_class r on r.reltype = p.proargtypes[0] and r.relkind in ('r', 'v', 'm', 'f', 'p')
left join pg_namespace rn on rn.oid = r.relnamespace
where n.nspname = any($1)
  and p.prokind = 'a'
  and p.pronargs = 1
  and t.typtype = 'd'
  and (t.typname ~ '^[A-Za-z0-9.-]+/[A-Za-z0-9.+-]+$' or t.typname = '*/*')
  and (r.oid is not null or p.proargtypes[0] = 'anyelement'::regtype)
