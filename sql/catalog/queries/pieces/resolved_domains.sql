-- Two CTEs of a "with recursive": domains, each domain with every type
-- under it (domains may stack), and resolved, each domain's final,
-- non-domain base type and that base's type modifier.
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
resolved as (
  select d.oid, d.base, d.basemod
  from domains d
  join pg_type b on b.oid = d.base
  where b.typtype <> 'd'
)
