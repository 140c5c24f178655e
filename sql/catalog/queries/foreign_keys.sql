-- Foreign keys of the relations in $1, as attnum arrays in key order; Go
-- keeps those whose referenced relation is in the set too. Clones that
-- PostgreSQL makes on partitions (conparentid <> 0) are left out: the key
-- of the partitioned table stands for them.
select k.conname, r.oid, k.confrelid, k.conkey, k.confkey
from unnest($1::oid[]) as r(oid)
cross join lateral (
  select c.conname::text, c.confrelid, c.conkey, c.confkey
  from pg_constraint c
  where c.conrelid = r.oid
    and c.contype = 'f'
    and c.conparentid = 0
  -- OFFSET 0 keeps this a per-relation index lookup (see keys.sql).
  offset 0
) k(conname, confrelid, conkey, confkey)
