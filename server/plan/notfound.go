package plan

import (
	"strings"
	"time"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/suggest"
	"github.com/svc-dev/svc/snapshot"
)

// Answers for names the snapshot does not hold. The snapshot pictures the
// schema when it was dumped: a table or function created since is unknown
// until a new snapshot is loaded, and a bare 404 does not tell a caller
// (or the developer who just ran a migration) that. The hint names the
// closest known name, as PostgREST's hints do, and the snapshot answered
// from.

// undefinedRelation answers a relation the snapshot lacks.
func undefinedRelation(snap *snapshot.Snapshot, name snapshot.QualifiedName) *apierr.Error {
	return apierr.UndefinedTable(name.String(), hints(closestRelation(snap, name), staleHint(snap)))
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

// staleHint says which snapshot a name was looked up in.
func staleHint(snap *snapshot.Snapshot) string {
	h := snap.Header
	fp := h.Fingerprint
	if len(fp) > 12 {
		fp = fp[:12]
	}
	return "The schema snapshot in use (fingerprint " + fp + ", taken " + h.CreatedAt.UTC().Format(time.RFC3339) +
		") does not have it; if it was created since, reload the schema snapshot."
}

// hints joins the hints that are not empty.
func hints(hs ...string) string {
	var out []string
	for _, h := range hs {
		if h != "" {
			out = append(out, h)
		}
	}
	return strings.Join(out, " ")
}
