-- Roles other than PostgreSQL's predefined pg_* ones, with direct
-- memberships and their ALTER ROLE ... SET settings for this database and
-- for all databases.
select
  r.rolname::text,
  r.rolinherit,
  r.rolsuper,
  array(
    select m.rolname::text
    from pg_auth_members am
    join pg_roles m on m.oid = am.roleid
    where am.member = r.oid
  ),
  coalesce((
    select s.setconfig
    from pg_db_role_setting s
    join pg_database db on db.oid = s.setdatabase
    where s.setrole = r.oid and db.datname = current_database()
  ), '{}'),
  coalesce((
    select s.setconfig from pg_db_role_setting s where s.setrole = r.oid and s.setdatabase = 0
  ), '{}')
from pg_roles r
where r.rolname !~ '^pg_'
