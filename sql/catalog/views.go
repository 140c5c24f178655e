package catalog

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
)

// colRef names a column of a relation by oid and attnum.
type colRef struct {
	rel uint32
	att int16
}

// viewTrace records which base table columns an exposed view shows: for
// each base column, the view columns (attnums, ascending) that show it. A
// view may show one base column several times under different names.
type viewTrace map[colRef][]int16

// maxViewDepth bounds the walk down a chain of views; PostgreSQL forbids
// cycles, so this only guards against a damaged catalog.
const maxViewDepth = 64

// readViews returns the top-level target list of every view and
// materialized view in schemas, by view oid.
func readViews(ctx context.Context, tx pgx.Tx, schemas []string) (map[uint32][]target, error) {
	rows, err := tx.Query(ctx, viewsSQL, schemas)
	if err != nil {
		return nil, fmt.Errorf("read views: %w", err)
	}
	views := map[uint32][]target{}
	var (
		oid                  uint32
		schema, name, action string
	)
	_, err = pgx.ForEachRow(rows, []any{&oid, &schema, &name, &action}, func() error {
		tl, err := parseTargetList(action)
		if err != nil {
			// Failing beats silently dropping the view's relationships; this
			// means a PostgreSQL release changed the node format.
			return fmt.Errorf("view %s.%s: cannot read its query tree: %w", schema, name, err)
		}
		views[oid] = tl
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read views: %w", err)
	}
	return views, nil
}

// traceViews follows each exposed view's columns down through views over
// views to the base table columns they show. Views in schemas neither
// exposed nor in the extra search path are not read, so a chain through one
// ends there and its columns trace to nothing (PostgREST behaves the same).
func traceViews(views map[uint32][]target, exposed map[uint32]*relation) map[uint32]viewTrace {
	traces := map[uint32]viewTrace{}
	for oid, rel := range exposed {
		tl, ok := views[oid]
		if !ok || !rel.Kind.DefinedByQuery() {
			continue
		}
		trace := viewTrace{}
		for _, t := range tl {
			origin, ok := resolveOrigin(views, colRef{t.origTbl, t.origCol})
			if !ok {
				continue
			}
			trace[origin] = append(trace[origin], t.resno)
		}
		for _, atts := range trace {
			slices.Sort(atts)
		}
		traces[oid] = trace
	}
	return traces
}

// resolveOrigin steps from a view column to the column it shows until it
// reaches a relation that is not a traced view.
func resolveOrigin(views map[uint32][]target, c colRef) (colRef, bool) {
	for range maxViewDepth {
		if c.rel == 0 {
			return c, false
		}
		tl, isView := views[c.rel]
		if !isView {
			return c, true
		}
		i := slices.IndexFunc(tl, func(t target) bool { return t.resno == c.att })
		if i < 0 {
			return c, false
		}
		c = colRef{tl[i].origTbl, tl[i].origCol}
	}
	return c, false
}

// tracedBases returns the oids of the relations exposed views trace to,
// with repeats; their keys and foreign keys decide the views' relationships.
func tracedBases(traces map[uint32]viewTrace) []uint32 {
	var out []uint32
	for _, trace := range traces {
		for c := range trace {
			out = append(out, c.rel)
		}
	}
	return out
}

// viewPrimaryKey infers a view's primary key as PostgREST does: for every
// base table whose whole primary key the view shows, the view columns that
// show it (the first one where a column is shown twice), tables taken in the
// order their key first appears in the view. Views have no constraints of
// their own; this is what lets a view take PUT and answer with a Location.
func viewPrimaryKey(trace viewTrace, keys map[uint32][]key, rel *relation) []string {
	type part struct {
		first int16
		atts  []int16
	}
	var parts []part
	for base := range basesOf(trace) {
		for _, k := range keys[base] {
			if !k.primary {
				continue
			}
			p := part{first: -1}
			for _, att := range k.attnums {
				shown := trace[colRef{base, att}]
				if len(shown) == 0 {
					p.atts = nil
					break
				}
				p.atts = append(p.atts, shown[0])
				if p.first < 0 || shown[0] < p.first {
					p.first = shown[0]
				}
			}
			if p.atts != nil {
				parts = append(parts, p)
			}
		}
	}
	slices.SortFunc(parts, func(a, b part) int { return int(a.first) - int(b.first) })
	pk := []string{}
	for _, p := range parts {
		for _, att := range p.atts {
			pk = append(pk, rel.columnName(att))
		}
	}
	return pk
}

// basesOf returns the set of relations a trace reaches.
func basesOf(trace viewTrace) map[uint32]bool {
	out := map[uint32]bool{}
	for c := range trace {
		out[c.rel] = true
	}
	return out
}
