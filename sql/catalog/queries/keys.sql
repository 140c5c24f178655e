-- Keys of the relations in $1: primary keys, unique constraints and unique
-- indexes without predicate or expressions (keys of whole rows), as attnums
-- in key order; Go names them from the columns it already has. Reading
-- pg_index covers constraints too: each has an index of the same name.
select r.oid, k.name, k.is_primary, k.attnums
from unnest($1::oid[]) as r(oid)
cross join lateral (
  -- indkey is an int2vector, subscripted from 0; the first indnkeyatts
  -- entries are the key, the rest INCLUDE columns that ride along.
  select ic.relname::text, i.indisprimary, (i.indkey::int2[])[0:i.indnkeyatts - 1]
  from pg_index i
  join pg_class ic on ic.oid = i.indexrelid
  where i.indrelid = r.oid
    and i.indisunique
    and i.indisvalid
    and i.indpred is null
    and i.indexprs is null
  -- OFFSET 0 keeps this a per-relation index lookup. Flattened into a join,
  -- the planner trusts catalog statistics, which are stale right after a
  -- migration (the usual moment to dump), and may pick a nested loop that
  -- costs seconds on thousands of tables.
  offset 0
) k(name, is_primary, attnums)
