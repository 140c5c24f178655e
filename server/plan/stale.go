package plan

import (
	"errors"
	"regexp"
	"strings"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/snapshot"
)

// A statement SVC builds names only what the snapshot in use has, so when
// the database answers it "no such column" (42703) or "no such relation"
// (42P01) for a name the snapshot has, the snapshot is ahead of a
// migration that renamed or dropped it: a write's return=representation
// after a column rename, before the reload. The body stays the database's
// error, as PostgREST answers it; the advice says the snapshot is stale
// and how to refresh it. A name the snapshot lacks is something else (a
// function body's own mistake), and gets no advice.

var (
	// undefinedColumnText reads the column PostgreSQL names in a 42703:
	// `column "title" of relation "books" does not exist`,
	// `column books.title does not exist`, `column "title" does not exist`.
	undefinedColumnText = regexp.MustCompile(`^column (?:"((?:[^"]|"")+)"|(?:[^ ]+\.)?([^ ."]+)) (?:of relation "(?:[^"]|"")+" )?does not exist$`)
	// undefinedRelationText reads the relation PostgreSQL names in a 42P01:
	// `relation "test.books" does not exist`.
	undefinedRelationText = regexp.MustCompile(`^relation "(?:[^"]*\.)?([^".]+)" does not exist$`)
)

// AdviseStale adds to err, a database error answering a statement built
// from snap, the advice that snap is ahead of the database, when the name
// the error reports is one snap has; refresh says how snap is brought up
// to date.
func AdviseStale(snap *snapshot.Snapshot, refresh Refresh, err error) {
	var e *apierr.Error
	if !errors.As(err, &e) || e.Advice != "" {
		return
	}
	switch e.Code {
	case "42703":
		m := undefinedColumnText.FindStringSubmatch(e.Message)
		if m == nil {
			return
		}
		name := strings.ReplaceAll(m[1], `""`, `"`) + m[2]
		if snapshotHasColumn(snap, name) {
			e.WithAdvice(SnapshotAhead(snap, refresh, `a column "`+name+`"`))
		}
	case "42P01":
		m := undefinedRelationText.FindStringSubmatch(e.Message)
		if m != nil && snapshotHasRelation(snap, m[1]) {
			e.WithAdvice(SnapshotAhead(snap, refresh, `a relation "`+m[1]+`"`))
		}
	}
}

// snapshotHasColumn reports whether a relation of snap has a column name.
func snapshotHasColumn(snap *snapshot.Snapshot, name string) bool {
	for i := range snap.Content.Relations {
		for _, c := range snap.Content.Relations[i].Columns {
			if c.Name == name {
				return true
			}
		}
	}
	return false
}

// snapshotHasRelation reports whether snap has a relation name.
func snapshotHasRelation(snap *snapshot.Snapshot, name string) bool {
	for i := range snap.Content.Relations {
		if snap.Content.Relations[i].Name == name {
			return true
		}
	}
	return false
}
