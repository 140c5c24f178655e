package plan

import (
	"strings"

	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// AllowRelation lists, for OPTIONS, the methods a relation's route
// answers, as PostgREST words its Allow header: reads always, POST when
// the relation takes inserts, PUT when it takes inserts and updates and has
// a primary key, PATCH and DELETE as it takes them. A view that is not
// auto-updatable thus offers reads only.
func AllowRelation(req *request.Request, snap *snapshot.Snapshot, opts Options) (string, error) {
	schema, err := Schema(req, opts)
	if err != nil {
		return "", err
	}
	name := snapshot.QualifiedName{Schema: schema, Name: req.Target}
	rel := snap.Relation(name)
	if rel == nil {
		return "", undefinedRelation(snap, name, opts)
	}
	methods := []string{"OPTIONS", "GET", "HEAD"}
	if rel.Insertable {
		methods = append(methods, "POST")
	}
	if rel.Insertable && rel.Updatable && len(rel.PrimaryKey) > 0 {
		methods = append(methods, "PUT")
	}
	if rel.Updatable {
		methods = append(methods, "PATCH")
	}
	if rel.Deletable {
		methods = append(methods, "DELETE")
	}
	return strings.Join(methods, ","), nil
}

// AllowFunction lists, for OPTIONS, the methods a function's route
// answers, as PostgREST does: a volatile function is offered to POST
// only. (GET still calls one that writes nothing: it runs read-only.)
func AllowFunction(req *request.Request, snap *snapshot.Snapshot, opts Options) (string, error) {
	schema, err := Schema(req, opts)
	if err != nil {
		return "", err
	}
	name := snapshot.QualifiedName{Schema: schema, Name: req.Target}
	fns := snap.Functions(name)
	if len(fns) == 0 {
		return "", noFunction(snap, name, nil, nil, opts)
	}
	// A volatile function may write, which GET must not: POST only, as
	// in PostgREST, unless some overload is not volatile.
	for _, f := range fns {
		if f.Volatility != snapshot.Volatile {
			return "OPTIONS,GET,HEAD,POST", nil
		}
	}
	return "OPTIONS,POST", nil
}
