package openapi

import (
	"bytes"
	"io"

	"github.com/svc-dev/svc/snapshot"
)

// Options say what to describe and how.
type Options struct {
	// Schema is the exposed schema described (one per document).
	Schema string
	// Version is SVC's version, shown as info.version.
	Version string
	// Role is the requesting role (from its token, or db-anon-role).
	Role string
	// FollowPrivileges limits the document to what Role may use
	// (openapi-mode follow-privileges); otherwise every relation and
	// function of the schema is described (ignore-privileges).
	FollowPrivileges bool
	// Security adds the JWT security definition and requirement
	// (openapi-security-active).
	Security bool
	// Scheme, Host ("name:port") and BasePath say where the API is reached.
	Scheme, Host, BasePath string
	// Vendor is the vendor of SVC's media types ("svc" for
	// application/vnd.svc.object+json).
	Vendor string
	// Format is the version of the description: Swagger2 (also when
	// empty) or OpenAPI31.
	Format string
	// Anonymous says a request without a token is served (db-anon-role
	// is set), so the 3.1 document makes its bearer token optional.
	Anonymous bool
}

// Build returns the document for opts over snap as JSON: what Write
// writes, held whole.
func Build(snap *snapshot.Snapshot, opts Options) ([]byte, error) {
	var buf bytes.Buffer
	if err := Write(&buf, snap, opts); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write writes the document for opts over snap to w as it is made: it
// holds one path or schema at a time, never the document, whatever the
// schema's size. A failure of w ends it with w's error, after some of
// the document was written.
func Write(w io.Writer, snap *snapshot.Snapshot, opts Options) error {
	return write(w, snap, opts, newLayout(snap, opts.Schema))
}

// write is Write with the layout of snap's schema opts.Schema.
func write(w io.Writer, snap *snapshot.Snapshot, opts Options, l *layout) error {
	b := &builder{snap: snap, opts: opts, layout: l}
	if opts.FollowPrivileges {
		a := snap.AccessOf(opts.Role)
		b.access = &a
	}
	s := newJSONStream(w)
	if opts.Format == OpenAPI31 {
		b.write31(s)
	} else {
		b.write2(s)
	}
	return s.flush()
}

// builder holds what every part of the document needs.
type builder struct {
	snap *snapshot.Snapshot
	opts Options
	// layout orders the schema's relations and functions.
	layout *layout
	// access is the role's privileges; nil when privileges are ignored.
	access *snapshot.Access
	// domainSchemas are the components of the domains the 3.1 document
	// has referred to so far, by key (see domainRef).
	domainSchemas map[string]*jsonSchema
}

// ops are the operations a relation's path offers.
type ops struct{ get, post, patch, delete bool }

func (o ops) any() bool { return o.get || o.post || o.patch || o.delete }

// operations decides a relation's operations: writes where its kind and
// pg_relation_is_updatable allow them (never on a materialized view; on a
// view only when auto-updatable or given rules or triggers), and, when
// following privileges, where the role holds the privilege on the
// relation or (select, insert, update) on one of its columns.
func (b *builder) operations(r *snapshot.Relation) ops {
	writable := r.Kind != snapshot.KindMaterializedView
	o := ops{
		get:    true,
		post:   writable && r.Insertable,
		patch:  writable && r.Updatable,
		delete: writable && r.Deletable,
	}
	if a := b.access; a != nil {
		o.get = a.AnyColumn(r, snapshot.PrivSelect)
		o.post = o.post && a.AnyColumn(r, snapshot.PrivInsert)
		o.patch = o.patch && a.AnyColumn(r, snapshot.PrivUpdate)
		o.delete = o.delete && a.Table(r, snapshot.PrivDelete)
	}
	return o
}

// relation is a described relation and its operations.
type relation struct {
	*snapshot.Relation
	ops ops
}

// reservedQuery are query parameters that never filter a column, so a
// column of that name gets no row filter (it could not be used, and the
// parameter would clash with the reserved one).
var reservedQuery = map[string]bool{"select": true, "order": true, "limit": true, "offset": true,
	"on_conflict": true, "columns": true, "or": true, "and": true}

// rowFilter names the shared parameter filtering column col of rel.
func rowFilter(rel, col string) string { return "rowFilter." + rel + "." + col }

// sharedParameters are the parameters every relation's operations refer
// to; the relations add their bodies and row filters.
func sharedParameters() map[string]*parameter {
	query := func(name, description string) *parameter {
		return &parameter{Name: name, In: "query", Description: description, Required: optional, Type: "string"}
	}
	prefer := func(values ...string) *parameter {
		return &parameter{Name: "Prefer", In: "header", Description: "Preference", Required: optional,
			Type: "string", Enum: values}
	}
	return map[string]*parameter{
		"preferParams": prefer("params=single-object"),
		"preferReturn": prefer("return=representation", "return=minimal", "return=none"),
		"preferCount":  prefer("count=none"),
		"preferPost": prefer("return=representation", "return=minimal", "return=none",
			"resolution=ignore-duplicates", "resolution=merge-duplicates"),
		"select":      query("select", "Filtering Columns"),
		"on_conflict": query("on_conflict", "On Conflict"),
		"order":       query("order", "Ordering"),
		"range": {Name: "Range", In: "header", Description: "Limiting and Pagination",
			Required: optional, Type: "string"},
		"rangeUnit": {Name: "Range-Unit", In: "header", Description: "Limiting and Pagination",
			Required: optional, Type: "string", Default: "items"},
		"offset": query("offset", "Limiting and Pagination"),
		"limit":  query("limit", "Limiting and Pagination"),
	}
}

// info is the document's info object, the same in both versions.
func (b *builder) info() info {
	return info{
		Title:       "SVC API",
		Description: "Tables, views and functions of schema " + b.opts.Schema + ", served by SVC",
		Version:     b.opts.Version,
	}
}
