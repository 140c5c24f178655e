package plan

import (
	"slices"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// Options are the configuration values planning depends on.
type Options struct {
	// Schemas is db-schemas; the first is the default.
	Schemas []string
	// MaxRows is db-max-rows; 0 means no cap.
	MaxRows int64
}

// Read is a planned read of one relation.
type Read struct {
	Relation *snapshot.Relation
	Columns  []Column
	Filters  []request.Filter
	Logic    []request.LogicTree
	Order    []request.OrderTerm
	Offset   int64
	// Limit is nil for no limit.
	Limit *int64
	// Head marks a HEAD request: the body is not built.
	Head bool
	// Media is the negotiated representation of the body.
	Media request.Media
	// Count is the Prefer count method: "", exact, planned or estimated.
	Count string
	// MaxRows is db-max-rows, which also bounds an estimated count.
	MaxRows int64
}

// OutputNames lists the keys of each output row in order, expanding `*`
// from the snapshot; CSV uses it as its header line.
func (p *Read) OutputNames() []string {
	var names []string
	for _, c := range p.Columns {
		switch {
		case c.Star:
			for _, col := range p.Relation.Columns {
				names = append(names, col.Name)
			}
		case c.Alias != "":
			names = append(names, c.Alias)
		default:
			names = append(names, c.Field.OutputName())
		}
	}
	return names
}

// Column is one output column of a read.
type Column struct {
	// Star outputs every column of the relation.
	Star  bool
	Field request.Field
	// Alias is the output key; empty means the field's own name.
	Alias string
	Cast  string
}

// Schema returns the schema a request addresses, or SVC106 when a profile
// header names one outside db-schemas.
func Schema(req *request.Request, opts Options) (string, error) {
	if req.Schema == "" {
		return opts.Schemas[0], nil
	}
	if !slices.Contains(opts.Schemas, req.Schema) {
		return "", apierr.UnacceptableSchema(opts.Schemas)
	}
	return req.Schema, nil
}

// BuildRead plans a GET or HEAD on a relation.
func BuildRead(req *request.Request, snap *snapshot.Snapshot, opts Options) (*Read, error) {
	if req.Prefer.Handling == "strict" && len(req.Prefer.Invalid) > 0 {
		return nil, apierr.InvalidPreferences(req.Prefer.Invalid)
	}
	schema, err := Schema(req, opts)
	if err != nil {
		return nil, err
	}
	name := snapshot.QualifiedName{Schema: schema, Name: req.Target}
	rel := snap.Relation(name)
	if rel == nil {
		return nil, apierr.UndefinedTable(name.String())
	}
	p := &Read{Relation: rel, Filters: req.Filters, Logic: req.Logic, Order: req.Order, Offset: req.Range.Offset,
		Limit: capLimit(req.Range.Limit, opts.MaxRows), Head: req.Method == "HEAD",
		Media: req.Media, Count: req.Prefer.Count, MaxRows: opts.MaxRows}
	cols := columnChecker{snap: snap, rel: rel}
	for _, item := range req.Select {
		if item.Star {
			p.Columns = append(p.Columns, Column{Star: true})
			continue
		}
		if err := cols.check(item.Field.Name); err != nil {
			return nil, err
		}
		p.Columns = append(p.Columns, Column{Field: item.Field, Alias: item.Alias, Cast: item.Cast})
	}
	if len(p.Columns) == 0 {
		p.Columns = []Column{{Star: true}}
	}
	for _, f := range req.Filters {
		if err := cols.check(f.Field.Name); err != nil {
			return nil, err
		}
	}
	for _, t := range req.Logic {
		if err := cols.checkTree(t); err != nil {
			return nil, err
		}
	}
	for _, o := range req.Order {
		if err := cols.check(o.Field.Name); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// capLimit applies db-max-rows: a response never holds more rows than that.
func capLimit(limit *int64, maxRows int64) *int64 {
	if maxRows <= 0 {
		return limit
	}
	if limit == nil || *limit > maxRows {
		return &maxRows
	}
	return limit
}
