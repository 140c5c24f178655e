-- The grants of an object as a JSON array, one {"grantee", "privileges"}
-- per role (PUBLIC by that name), g(grants), from the ACL the query names
-- acl(items) before it.
cross join lateral (
  select coalesce(jsonb_agg(jsonb_build_object('grantee', e.grantee, 'privileges', e.privileges)), '[]')
  from (
    select
      case when a.grantee = 0 then 'PUBLIC' else pg_get_userbyid(a.grantee)::text end as grantee,
      array_agg(distinct a.privilege_type) as privileges
    from aclexplode(acl.items) a
    group by a.grantee
  ) e
) g(grants)
