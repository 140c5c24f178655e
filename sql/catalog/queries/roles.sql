-- Roles other than PostgreSQL's predefined pg_* ones, with direct
-- memberships and their ALTER ROLE ... SET settings for this database and
-- for all databases. Only settings a role may set for itself are kept
-- (context 'user', or custom names with a dot): the server applies them to
-- the role's requests with set_config after SET ROLE, where a superuser-only
-- setting would fail every request of that role.
with settable(setrole, setdatabase, setting) as (
  select s.setrole, s.setdatabase, c
  from pg_db_role_setting s, unnest(s.setconfig) c
  where split_part(c, '=', 1) like '%.%'
     or exists (select from pg_settings ps where ps.name = split_part(c, '=', 1) and ps.context = 'user')
)
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
  array(
    select s.setting
    from settable s
    join pg_database db on db.oid = s.setdatabase
    where s.setrole = r.oid and db.datname = current_database()
  ),
  array(
    select s.setting from settable s where s.setrole = r.oid and s.setdatabase = 0
  )
from pg_roles r
where r.rolname !~ '^pg_'
