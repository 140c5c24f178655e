-- Function-backed casts from or to a domain: the data representations that
-- let a domain type read and write its values in its own format.
select
  format_type(c.castsource, null),
  format_type(c.casttarget, null),
  fn.nspname::text,
  p.proname::text
from pg_cast c
join pg_type s on s.oid = c.castsource
join pg_type t on t.oid = c.casttarget
join pg_proc p on p.oid = c.castfunc
join pg_namespace fn on fn.oid = p.pronamespace
where (s.typtype = 'd' or t.typtype = 'd')
  and c.castfunc <> 0
