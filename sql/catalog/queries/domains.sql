-- Domains the API shows: those of the exposed relations' columns, of the
-- arguments and results of functions in the exposed schemas ($1) and in
-- db-extra-search-path ($2, where computed fields may live), the element
-- domains of array types among those, and every domain those stand on.
-- Other domains of the database would only make the snapshot bigger.
with recursive
used(oid) as (
  select a.atttypid
  from pg_attribute a
  join pg_class c on c.oid = a.attrelid
  join pg_namespace n on n.oid = c.relnamespace
  where n.nspname = any($1)
    and c.relkind in ('r', 'v', 'm', 'f', 'p')
    and not c.relispartition
    and a.attnum > 0
    and not a.attisdropped
  union
  select u.t
  from pg_proc p
  join pg_namespace n on n.oid = p.pronamespace
  cross join lateral unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]) || p.prorettype) u(t)
  where n.nspname = any($1 || $2)
    and p.prokind = 'f'
),
domains(oid) as (
  select t.oid
  from used u
  join pg_type ut on ut.oid = u.oid
  -- An array's element (a column of type posint[]), or the type itself.
  join pg_type t on t.oid = case when ut.typcategory = 'A' and ut.typelem <> 0 then ut.typelem else ut.oid end
  where t.typtype = 'd'
  union
  select b.oid
  from domains d
  join pg_type t on t.oid = d.oid
  join pg_type b on b.oid = t.typbasetype
  where b.typtype = 'd'
)
select
  n.nspname::text,
  t.typname::text,
  format_type(t.oid, null),
  format_type(t.typbasetype, t.typtypmod),
  t.typnotnull,
  coalesce(not coll.collisdeterministic, false),
  coalesce(d.description, ''),
  -- pg_get_expr rather than pg_get_constraintdef: the condition alone,
  -- without CHECK ( ) and NOT VALID around it, which validated says.
  (
    select jsonb_agg(jsonb_build_object('name', c.conname, 'expr', pg_get_expr(c.conbin, 0), 'validated', c.convalidated))
    from pg_constraint c
    where c.contypid = t.oid and c.contype = 'c'
  )
from domains x
join pg_type t on t.oid = x.oid
join pg_namespace n on n.oid = t.typnamespace
left join pg_collation coll on coll.oid = t.typcollation
left join pg_description d
  on d.objoid = t.oid and d.classoid = 'pg_type'::regclass and d.objsubid = 0
