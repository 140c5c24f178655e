-- Enums and composite types of the exposed schemas ($1), for the types of
-- typed clients: an enum's labels in their sort order, a composite type's
-- attributes in order, with their types as format_type prints them. A
-- relation's row type is not one: the relation describes it.
select
  n.nspname::text,
  t.typname::text,
  case when t.typtype = 'e' then
    array(select e.enumlabel::text from pg_enum e where e.enumtypid = t.oid order by e.enumsortorder)
  end,
  case when t.typtype = 'c' then (
    select jsonb_agg(jsonb_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod)) order by a.attnum)
    from pg_attribute a
    where a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped
  ) end
from pg_type t
join pg_namespace n on n.oid = t.typnamespace
left join pg_class c on c.oid = t.typrelid
where n.nspname = any($1)
  and (t.typtype = 'e' or (t.typtype = 'c' and c.relkind = 'c'))
