-- Query trees of the views and materialized views in the exposed and extra
-- search path schemas ($1): their top-level target lists say which base
-- column each view column shows. pg_get_viewdef is SQL text and would need a
-- parser; the node tree carries resorigtbl/resorigcol already resolved.
select c.oid, n.nspname::text, c.relname::text, r.ev_action::text
from pg_rewrite r
join pg_class c on c.oid = r.ev_class
join pg_namespace n on n.oid = c.relnamespace
where c.relkind in ('v', 'm')
  and r.rulename = '_RETURN'
  and n.nspname = any($1)
