package plan

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/suggest"
	"github.com/svc-dev/svc/snapshot"
)

// Answers for names the snapshot does not hold. The snapshot pictures the
// schema when it was dumped: a table, function, column or foreign key
// created since is unknown until a new snapshot is loaded, and a bare 404
// or 400 does not tell a caller (or the developer who just ran a
// migration) that. The body stays what PostgREST answers, its hint what
// PostgreSQL or PostgREST would suggest (the closest known name), since
// clients compare it; SVC's advice (apierr.Error.Advice, sent in a header
// and logged) names the snapshot answered from and the step that makes a
// new name known, which depends on where the snapshot comes from
// (Refresh), or the setting that is more likely at fault (Options.Misconfigured).

// Refresh is how the snapshot a server plans with is brought up to date
// after a migration: the step a hint about a name the snapshot lacks
// tells the developer to take.
type Refresh int

const (
	// RefreshReload is live introspection (no snapshot setting): the
	// server reads the catalog again on a reload, which is the whole step.
	RefreshReload Refresh = iota
	// RefreshDump is a snapshot file: a reload reads the same file again
	// until it is dumped anew.
	RefreshDump
	// RefreshPublish is a snapshot published in the database: publishing
	// a new one notifies the servers, which reload it.
	RefreshPublish
)

// step is what to do, in a hint, to have the servers know a new name.
func (r Refresh) step() string {
	switch r {
	case RefreshDump:
		return "dump the snapshot file again (svc-introspect dump), then reload the schema snapshot"
	case RefreshPublish:
		return "publish a new snapshot (svc-introspect publish), which has the servers reload it"
	}
	return "reload the schema snapshot"
}

// undefinedRelation answers a relation the snapshot lacks.
func undefinedRelation(snap *snapshot.Snapshot, name snapshot.QualifiedName, opts Options) *apierr.Error {
	if h := missingSchemaHint(snap, name.Schema); h != "" {
		return apierr.UndefinedTable(name.String(), "").WithAdvice(h)
	}
	// PostgreSQL's own 42P01 has no hint, and PostgREST 12 forwards it as
	// it is: the closest relation is SVC's advice, as is the snapshot's.
	return apierr.UndefinedTable(name.String(), "").WithAdvice(closestRelation(snap, name)).WithAdvice(notFoundAdvice(snap, opts))
}

// notFoundAdvice is the advice on a relation or function the snapshot
// lacks: a configuration that looks mistaken (a misspelt db-schemas, whose
// fix no reload brings) when there is one, the snapshot's staleness
// otherwise.
func notFoundAdvice(snap *snapshot.Snapshot, opts Options) string {
	if opts.Misconfigured != "" {
		return opts.Misconfigured
	}
	return staleAdvice(snap, opts.Refresh, "it", "created")
}

// closestRelation suggests the relation of name's schema closest to it.
func closestRelation(snap *snapshot.Snapshot, name snapshot.QualifiedName) string {
	var names []string
	kinds := map[string]snapshot.RelationKind{}
	for i := range snap.Content.Relations {
		if r := &snap.Content.Relations[i]; r.Schema == name.Schema {
			names = append(names, r.Name)
			kinds[r.Name] = r.Kind
		}
	}
	best := suggest.Typo(name.Name, names)
	if best == "" {
		return ""
	}
	kind := "table"
	if strings.Contains(string(kinds[best]), "view") {
		kind = "view"
	}
	return "Perhaps you meant the " + kind + " '" + name.Schema + "." + best + "'."
}

// missingSchemaHint answers a name looked up in an exposed schema that the
// snapshot was not taken of, "" for a schema it covers. Only live
// introspection serves such a snapshot (a snapshot file or a published one
// must cover every exposed schema): the schema did not exist when the
// server introspected, which a reload does not mend when db-schemas is
// mistyped, so the hint says so rather than suggest a reload.
func missingSchemaHint(snap *snapshot.Snapshot, schema string) string {
	if slices.Contains(snap.Header.Schemas, schema) {
		return ""
	}
	h := "The schema \"" + schema + "\" is in db-schemas but did not exist in the database when the server read it: is db-schemas mistyped?"
	if best := suggest.Typo(schema, snap.Header.Schemas); best != "" {
		h += " Perhaps you meant the schema \"" + best + "\"."
	}
	return h
}

// staleAdvice says which snapshot a name was looked up in and, should what
// the name stands for have been made (change: "created", "added") since
// it was taken, how to have it known.
func staleAdvice(snap *snapshot.Snapshot, refresh Refresh, what, change string) string {
	return "The schema snapshot in use (" + snapshotNamed(snap) + ") does not have " + what + "; if it was " + change + " since, " +
		refresh.step() + "."
}

// snapshotNamed names snap in advice: its fingerprint's first twelve
// characters and when it was taken.
func snapshotNamed(snap *snapshot.Snapshot) string {
	h := snap.Header
	fp := h.Fingerprint
	if len(fp) > 12 {
		fp = fp[:12]
	}
	return "fingerprint " + fp + ", taken " + h.CreatedAt.UTC().Format(time.RFC3339)
}

// staleRelationship advises with findRelationship's SVC200, its only 400, the
// snapshot it searched: a foreign key added since is unknown until a new
// snapshot is loaded. SVC201 (ambiguous) is about relationships the
// snapshot has, and passes as it is; so does a target named as a
// partition of a related partitioned table (noRelationshipHint), which no
// snapshot makes embeddable.
func staleRelationship(err error, snap *snapshot.Snapshot, refresh Refresh, origin *snapshot.Relation, target string) error {
	var e *apierr.Error
	if !errors.As(err, &e) || e.Status != 400 {
		return err
	}
	for _, r := range snap.RelationshipsFrom(origin.QualifiedName) {
		ft := snap.Relation(r.ForeignTable)
		if !r.Computed() && ft != nil && ft.Kind == snapshot.KindPartitionedTable && strings.HasPrefix(target, ft.Name+"_") {
			return err
		}
	}
	return e.WithAdvice(staleAdvice(snap, refresh, "a relationship between '"+origin.Name+"' and '"+target+"'", "added"))
}

// SnapshotAhead is the advice on an error the database raised for a name
// the snapshot in use has and the database no longer does (what: "a
// column \"title\""): renamed or dropped since the snapshot was taken,
// which a statement built from the snapshot meets only when it runs.
func SnapshotAhead(snap *snapshot.Snapshot, refresh Refresh, what string) string {
	return "The schema snapshot in use (" + snapshotNamed(snap) + ") has " + what + ", which the database does not; " +
		"if it was renamed or dropped since, " + refresh.step() + "."
}
