-- Domain representations: implicit, function-backed casts from a domain to
-- json or text, or from json or text to a domain (PostgREST's rule). The
-- server formats and parses the domain's values with their functions;
-- other casts change nothing in the API, so they are not read.
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
where c.castcontext = 'i'
  and c.castmethod = 'f'
  and (
    (s.typtype = 'd' and c.casttarget in ('json'::regtype, 'text'::regtype))
    or (t.typtype = 'd' and c.castsource in ('json'::regtype, 'text'::regtype))
  )
