-- Functions (not procedures, aggregates or window functions) of the exposed
-- schemas ($1). Trigger functions cannot be called, so they are left out.
select
  n.nspname::text,
  p.proname::text,
  coalesce(d.description, ''),
  pg_get_userbyid(p.proowner)::text,
  -- proallargtypes lists every argument including OUT ones, but is NULL when
  -- all arguments are IN; proargtypes then lists them.
  array(
    select format_type(u.t, null)
    from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality as u(t, ord)
    order by u.ord
  ),
  coalesce(p.proargnames, '{}')::text[],
  coalesce(p.proargmodes::text[], '{}'),
  p.pronargdefaults,
  p.provariadic <> 0,
  -- The single input argument's type, for computed relationships.
  case when p.pronargs = 1 then p.proargtypes[0] else 0 end,
  p.prorettype,
  p.prorettype = 'void'::regtype,
  p.prorettype = 'record'::regtype,
  dc.relid is not null,
  coalesce(rn.nspname, tn.nspname)::text,
  coalesce(rc.relname, rt.typname)::text,
  p.proretset,
  p.provolatile::text,
  p.prorows::float8,
  p.proconfig,
  g.grants,
  md.media,
  md.send_schema,
  md.send_name
from pg_proc p
join pg_namespace n on n.oid = p.pronamespace
join pg_type rt on rt.oid = p.prorettype
join pg_namespace tn on tn.oid = rt.typnamespace
-- The composite type the result is, through any domains over it: a
-- function returning a domain over a table's type returns that table's
-- rows, which embed like the table's.
left join lateral (
  with recursive dom(typtype, typbasetype, typrelid) as (
    select rt.typtype, rt.typbasetype, rt.typrelid
    union all
    select t.typtype, t.typbasetype, t.typrelid
    from pg_type t join dom on t.oid = dom.typbasetype
    where dom.typtype = 'd'
  )
  select dom.typrelid from dom where dom.typrelid <> 0 limit 1
) dc(relid) on true
left join pg_class rc on rc.oid = dc.relid
left join pg_namespace rn on rn.oid = rc.relnamespace
-- A function returning (not as a set) a domain named after a media type
-- is that media type's handler; the domain's send function turns its
-- value into the body's bytes.
left join lateral (
  select lower(rt.typname::text), sn.nspname::text, s.proname::text
  from pg_proc s
  join pg_namespace sn on sn.oid = s.pronamespace
  where s.oid = rt.typsend
    and rt.typtype = 'd'
    and not p.proretset
    and (rt.typname ~ '^[A-Za-z0-9.-]+/[A-Za-z0-9.+-]+$' or rt.typname = '*/*')
) md(media, send_schema, send_name) on true
left join pg_description d
  on d.objoid = p.oid and d.classoid = 'pg_proc'::regclass and d.objsubid = 0
-- A NULL acl is the default one: EXECUTE for the owner and for PUBLIC.
cross join lateral (select coalesce(p.proacl, acldefault('f', p.proowner))) acl(items)
--@ grants.sql
where n.nspname = any($1)
  and p.prokind = 'f'
  and p.prorettype not in ('trigger'::regtype, 'event_trigger'::regtype)
