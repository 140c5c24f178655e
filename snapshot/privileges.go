package snapshot

import (
	"slices"
	"strings"
)

// Access is what one role may do, derived from the snapshot's raw access
// lists and role memberships alone, so that the OpenAPI document (and
// OPTIONS) can follow privileges without a catalog query. It mirrors
// has_table_privilege, has_any_column_privilege and has_function_privilege
// for a session that has SET ROLE to the role.
//
// Access does not see schema USAGE (the snapshot keeps no schema grants):
// a role without USAGE on an exposed schema is told what its object grants
// allow, and the database refuses the request itself.
type Access struct {
	// holders are the role, the roles whose privileges it inherits, and
	// PUBLIC: a grant to any of them is the role's.
	holders map[string]bool
	all     bool // superuser
	// readAll and writeAll are held through PostgreSQL's predefined
	// roles pg_read_all_data (SELECT on every relation) and
	// pg_write_all_data (INSERT, UPDATE and DELETE), which no grant shows.
	readAll, writeAll bool
	// grantees are the roles the snapshot's grants name (Key).
	grantees map[string]bool
}

// AccessOf returns the effective privileges of role. Privileges of a role
// it is a member of count only while every role on the way has INHERIT
// (rolinherit, as PostgreSQL before 16 applies it). A role the snapshot
// does not know holds only what PUBLIC holds. A known role's are computed
// once per snapshot and kept, one per role the snapshot holds; an unknown
// name's (a token may carry any) each time, so that names never grow the
// snapshot. Callers only read the result.
func (s *Snapshot) AccessOf(role string) Access {
	i, ok := s.idx.roles[role]
	if !ok {
		return s.accessOf(role)
	}
	slot := &s.idx.access[i]
	if a := slot.Load(); a != nil {
		return *a
	}
	a := s.accessOf(role)
	slot.Store(&a)
	return a
}

// accessOf computes role's effective privileges: one walk over its
// memberships.
func (s *Snapshot) accessOf(role string) Access {
	a := Access{holders: map[string]bool{"PUBLIC": true}, grantees: s.idx.grantees}
	var walk func(name string)
	walk = func(name string) {
		if a.holders[name] {
			return
		}
		a.holders[name] = true
		r := s.Role(name)
		if r == nil {
			return
		}
		if r.Superuser {
			a.all = true
		}
		if r.Inherit {
			for _, m := range r.MemberOf {
				walk(m)
			}
		}
	}
	walk(role)
	a.readAll, a.writeAll = a.holders["pg_read_all_data"], a.holders["pg_write_all_data"]
	return a
}

// Key identifies what the role may do on the objects of the snapshot a
// was computed from: roles with the same key hold the same privileges
// there, so what follows from privileges alone (the OpenAPI document) is
// the same for them and can be shared. It names the powers no grant shows
// and, in order, the role's holders that some grant names; a holder no
// grant names changes nothing.
func (a Access) Key() string {
	if a.all {
		return "superuser"
	}
	var names []string
	for h := range a.holders {
		if a.grantees[h] {
			names = append(names, h)
		}
	}
	slices.Sort(names)
	var b strings.Builder
	if a.readAll {
		b.WriteString("read-all")
	}
	if a.writeAll {
		b.WriteString("write-all")
	}
	for _, n := range names {
		// A role name cannot hold a NUL byte, so the key is unambiguous.
		b.WriteByte(0)
		b.WriteString(n)
	}
	return b.String()
}

// granted reports whether grants give priv to one of a's holders.
func (a Access) granted(grants []Grant, priv string) bool {
	for _, g := range grants {
		if a.holders[g.Grantee] && slices.Contains(g.Privileges, priv) {
			return true
		}
	}
	return false
}

// Table reports whether the role holds priv (PrivSelect, PrivInsert, ...)
// on the whole relation.
func (a Access) Table(r *Relation, priv string) bool {
	return a.all || a.predefined(priv) || a.granted(r.Grants, priv)
}

// predefined reports whether a predefined role gives priv on every
// relation.
func (a Access) predefined(priv string) bool {
	switch priv {
	case PrivSelect:
		return a.readAll
	case PrivInsert, PrivUpdate, PrivDelete:
		return a.writeAll
	}
	return false
}

// Column reports whether the role holds priv on column c of r, by a grant
// on the relation or on the column.
func (a Access) Column(r *Relation, c *Column, priv string) bool {
	return a.Table(r, priv) || a.granted(c.Grants, priv)
}

// AnyColumn reports whether the role holds priv on the relation or on at
// least one of its columns: enough to select, insert or update something.
func (a Access) AnyColumn(r *Relation, priv string) bool {
	if a.Table(r, priv) {
		return true
	}
	for i := range r.Columns {
		if a.granted(r.Columns[i].Grants, priv) {
			return true
		}
	}
	return false
}

// Execute reports whether the role may call f.
func (a Access) Execute(f *Function) bool {
	return a.all || a.granted(f.Grants, PrivExecute)
}
