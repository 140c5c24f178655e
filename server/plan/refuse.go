package plan

import (
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// Before a body is read, the server asks whether the request can run at
// all: a write to a relation that does not exist, or that the role holds
// no privilege on, is refused without reading, let alone converting, the
// body. The refusals are the ones planning or PostgreSQL would give later.

// WriteTarget returns the relation a write addresses, or the error
// BuildWrite would give first (an Accept SVC cannot answer, preferences,
// schema, unknown relation). Media handlers render reads and calls only.
func WriteTarget(req *request.Request, snap *snapshot.Snapshot, opts Options) (*snapshot.Relation, error) {
	if err := refuseUnrendered(opts.Names, req); err != nil {
		return nil, err
	}
	return target(req, snap, opts)
}

// WriteRefused returns PostgreSQL's privilege error (42501) for a POST,
// PUT or PATCH of rel by role when the snapshot's grants show that the
// role may not insert (POST, PUT) or update (PATCH) any column of it, and
// nil when the write may run or the snapshot cannot tell: a role the
// snapshot does not know, or a view PostgreSQL refuses to write for
// another reason first. Grants given after the snapshot was taken count
// once it is reloaded, as schema changes do.
func WriteRefused(method string, rel *snapshot.Relation, snap *snapshot.Snapshot, role string, authenticated bool) error {
	if snap.Role(role) == nil {
		return nil
	}
	priv, writable := snapshot.PrivInsert, rel.Insertable
	if method == "PATCH" {
		priv, writable = snapshot.PrivUpdate, rel.Updatable
	}
	if !writable || snap.AccessOf(role).AnyColumn(rel, priv) {
		return nil
	}
	return apierr.PermissionDenied(objectKind(rel.Kind), rel.Name, authenticated)
}

// CallRefused returns PostgreSQL's privilege error for a call of a
// function named as req asks when the role may execute none of the
// functions of that name, and nil otherwise (or when there are none,
// which BuildCall reports).
func CallRefused(req *request.Request, snap *snapshot.Snapshot, opts Options, role string, authenticated bool) error {
	schema, err := Schema(req, opts)
	if err != nil || snap.Role(role) == nil {
		return nil
	}
	fns := snap.Functions(snapshot.QualifiedName{Schema: schema, Name: req.Target})
	if len(fns) == 0 {
		return nil
	}
	access := snap.AccessOf(role)
	for _, f := range fns {
		if access.Execute(f) {
			return nil
		}
	}
	return apierr.PermissionDenied("function", req.Target, authenticated)
}

// objectKind is the word PostgreSQL's privilege errors use for a kind of
// relation.
func objectKind(k snapshot.RelationKind) string {
	switch k {
	case snapshot.KindView:
		return "view"
	case snapshot.KindMaterializedView:
		return "materialized view"
	case snapshot.KindForeignTable:
		return "foreign table"
	}
	return "table"
}
