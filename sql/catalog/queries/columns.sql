-- Columns of the relations relations.sql reads. Not ordered: sorting the wide
-- rows here spills to disk on large schemas; Go orders them by attnum.
with recursive
domains(oid, base, basemod) as (
  select t.oid, t.typbasetype, t.typtypmod
  from pg_type t
  where t.typtype = 'd'
  union all
  select d.oid, b.typbasetype, b.typtypmod
  from domains d
  join pg_type b on b.oid = d.base
  where b.typtype = 'd'
),
-- Each domain's final, non-domain base type (domains may stack).
resolved as (
  select d.oid, d.base, d.basemod
  from domains d
  join pg_type b on b.oid = d.base
  where b.typtype <> 'd'
)
select
  a.attrelid,
  a.attnum,
  a.attname::text,
  format_type(a.atttypid, a.atttypmod),
  -- The base type only for domains (NULL: same as the type), which saves
  -- a format_type call per column.
  case when r.oid is not null then format_type(bt.oid, r.basemod) end,
  tn.nspname::text,
  not a.attnotnull,
  -- A generated column's pg_attrdef row holds its expression, not a default.
  -- Defaults cannot refer to columns, so relation 0 deparses them alike,
  -- without opening the relation for every default (ten times faster).
  case when a.attgenerated = '' then pg_get_expr(ad.adbin, 0) end,
  case
    when bt.oid in ('bpchar'::regtype, 'varchar'::regtype) and coalesce(r.basemod, a.atttypmod) > 0
      then coalesce(r.basemod, a.atttypmod) - 4
    else 0
  end,
  case when bt.typtype = 'e' then
    array(select e.enumlabel::text from pg_enum e where e.enumtypid = bt.oid order by e.enumsortorder)
  end,
  coalesce(d.description, ''),
  a.attidentity = 'a' or a.attgenerated <> '',
  -- Column grants are rare; skip the subquery where there are none.
  case when a.attacl is not null then (
    select jsonb_agg(jsonb_build_object('grantee', e.grantee, 'privileges', e.privileges))
    from (
      select
        case when x.grantee = 0 then 'PUBLIC' else pg_get_userbyid(x.grantee)::text end as grantee,
        array_agg(distinct x.privilege_type) as privileges
      from aclexplode(a.attacl) x
      group by x.grantee
    ) e
  ) end
from pg_attribute a
join pg_class c on c.oid = a.attrelid
join pg_namespace n on n.oid = c.relnamespace
join pg_type t on t.oid = a.atttypid
join pg_namespace tn on tn.oid = t.typnamespace
left join resolved r on r.oid = a.atttypid
join pg_type bt on bt.oid = coalesce(r.base, a.atttypid)
left join pg_attrdef ad on ad.adrelid = a.attrelid and ad.adnum = a.attnum
left join pg_description d
  on d.objoid = a.attrelid and d.classoid = 'pg_class'::regclass and d.objsubid = a.attnum
where n.nspname = any($1)
  and c.relkind in ('r', 'v', 'm', 'f', 'p')
  and not c.relispartition
  and a.attnum > 0
  and not a.attisdropped
