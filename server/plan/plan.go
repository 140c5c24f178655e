package plan

import (
	"maps"
	"slices"
	"strconv"
	"strings"

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
	// Aggregates is db-aggregates-enabled: whether select may use
	// aggregate functions.
	Aggregates bool
	// LegacyTargetNames is url-use-legacy-target-names: whether
	// parameters may address an aliased embed by its relation's name.
	LegacyTargetNames bool
	// Refresh is how the snapshot is brought up to date, for the advice
	// on names it lacks.
	Refresh Refresh
	// Misconfigured, when set, is the advice on a relation or function
	// not found in place of a reload: the configuration was loaded with
	// warnings (a misspelt key) that may have left db-schemas other than
	// meant, which no reload mends.
	Misconfigured string
	// Names is the naming of the server planning: the vendor of its
	// media types and of a call's aliases (pgrst_call under PostgREST's).
	Names apierr.Naming
	// PreRequest is set when db-pre-request names a function, which runs
	// before every request's statement and may set the response settings.
	PreRequest bool
}

// Node is one relation of a read tree: the relation read, or an embed.
type Node struct {
	Relation *snapshot.Relation
	// Depth is the node's embedding depth: 0 for the relation read, 1
	// for its embeds, and so on.
	Depth int
	// Alias, when set, is what the statement names the rows of a top
	// node that are not a relation's: a function call's (Call.Alias).
	Alias string
	// Columns are the output columns in select order; embeds that output
	// something appear here too.
	Columns []Column
	// Fields resolves the names the node uses that stand for more than a
	// column reference (see Field); nil when there are none. When the
	// node selects `*`, it holds every column with a representation.
	Fields map[string]*Field
	// Filters and Logic restrict the node's rows. A filter whose field is
	// the key of one of Embeds tests that embed's presence instead.
	Filters []request.Filter
	Logic   []request.LogicTree
	// Order may hold terms on a to-one embed's column (Relation set).
	Order  []request.OrderTerm
	Offset int64
	// Limit is nil for no limit.
	Limit *int64
	// Embeds are every embed of the node, including empty ones `rel()`
	// that output nothing.
	Embeds []*Embed
}

// SQLName is the name the statement gives the node's relation: its own
// at the top (or the Alias of a call's rows), `<table>_<depth>` in an
// embed, as PostgREST names them, so database errors name it alike.
func (n *Node) SQLName() string {
	if n.Alias != "" {
		return n.Alias
	}
	if n.Depth == 0 {
		return n.Relation.Name
	}
	return n.Relation.Name + "_" + strconv.Itoa(n.Depth)
}

// Embed is a related relation read for each row of its parent.
type Embed struct {
	Node
	Relationship *snapshot.Relationship
	// Name is the relation (or foreign key, or column) as select wrote
	// it; Key is the output key and the name parameters address it by:
	// the alias, or Name.
	Name, Key string
	// Inner drops parent rows without a related row.
	Inner bool
	// Spread lifts the embed's columns into its parent's row.
	Spread bool
	// ByName marks an aliased embed some parameter addressed by Name, as
	// url-use-legacy-target-names allows: a deprecated spelling the
	// answer warns about (LegacyNames).
	ByName bool
}

// ToOne reports whether the embed yields at most one row per parent.
func (e *Embed) ToOne() bool { return e.Relationship.ToOne() }

// Outputs reports whether the embed puts anything in its parent's row.
func (e *Embed) Outputs() bool { return len(e.Columns) > 0 }

// EmbedNamed returns the embed of n whose key is name, or nil.
func (n *Node) EmbedNamed(name string) *Embed {
	for _, e := range n.Embeds {
		if e.Key == name {
			return e
		}
	}
	return nil
}

// aliasedEmbed returns the first embed of n, in select's order, that has
// an alias and embeds the relation name names, or nil.
func (n *Node) aliasedEmbed(name string) *Embed {
	for _, e := range n.Embeds {
		if e.Name == name && e.Key != name {
			return e
		}
	}
	return nil
}

// LegacyName is an aliased embed a parameter addressed by its relation's
// name.
type LegacyName struct{ Name, Alias string }

// LegacyNames lists the embeds under n that parameters addressed by
// their relation's name (Embed.ByName), depth first, as PostgREST lists
// them in its deprecation warning.
func (n *Node) LegacyNames() []LegacyName {
	var out []LegacyName
	for _, e := range n.Embeds {
		if e.ByName {
			out = append(out, LegacyName{Name: e.Name, Alias: e.Key})
		}
		out = append(out, e.LegacyNames()...)
	}
	return out
}

// Read is a planned read of one relation.
type Read struct {
	Node
	// Head marks a HEAD request: the body is not built.
	Head bool
	// Media is the negotiated representation of the body.
	Media request.Media
	// Count is the Prefer count method: "", exact, planned or estimated.
	Count string
	// MaxRows is db-max-rows, which also bounds an estimated count.
	MaxRows int64
	// Single renders the one row as an object whatever the media type: a
	// function returning one composite value.
	Single bool
	// Scalars marks rows of one column holding a value each (a function
	// returning a set of scalars): JSON renders the values themselves,
	// [1,2], not objects holding them.
	Scalars bool
	// Handler renders the rows when Media is a media handler's (or a plan
	// for one).
	Handler *Handler
	// Product is the product of the naming planned under (Options.Names),
	// the agent a Warning on the answer names (PostgREST under its naming).
	Product string
	// SettingsUnset is set when nothing the read runs can set the response
	// settings before its last row (quietRows): its rows need not carry
	// them, and the settings read after the rows are the answer's.
	SettingsUnset bool
}

// OutputNames lists the keys of each output row in order, expanding `*`
// from the snapshot and spread embeds into their own keys; CSV uses it as
// its header line.
func (n *Node) OutputNames() []string {
	var names []string
	for _, c := range n.Columns {
		switch {
		case c.Star:
			for _, col := range n.Relation.Columns {
				names = append(names, col.Name)
			}
		case c.Embed != nil && c.Embed.Spread:
			names = append(names, c.Embed.OutputNames()...)
		case c.Embed != nil:
			names = append(names, c.Embed.Key)
		default:
			names = append(names, c.OutputName())
		}
	}
	return names
}

// OutputName is the key a field or aggregate column appears under: the
// alias, the aggregate function's name, or the field's own name.
func (c Column) OutputName() string {
	switch {
	case c.Alias != "":
		return c.Alias
	case c.Aggregate != "":
		return c.Aggregate
	}
	return c.Field.OutputName()
}

// Column is one output column of a node: `*`, a field, or an embed.
type Column struct {
	// Star outputs every column of the relation.
	Star  bool
	Field request.Field
	// Alias is the output key; empty means the field's own name (or the
	// aggregate function's).
	Alias string
	// Cast applies to the field; with an aggregate, before aggregating.
	Cast string
	// Aggregate is avg, count, max, min or sum, or "" for none; count
	// without a field counts rows. AggregateCast applies to its result.
	Aggregate     string
	AggregateCast string
	// Embed is set for an embed's output (an object, an array, or its
	// spread columns).
	Embed *Embed
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

// targetName names the relation or function a request addresses, after
// refusing unknown preferences under handling=strict.
func targetName(req *request.Request, opts Options) (snapshot.QualifiedName, error) {
	if req.Prefer.Handling == "strict" && len(req.Prefer.Invalid) > 0 {
		return snapshot.QualifiedName{}, apierr.InvalidPreferences(req.Prefer.Invalid)
	}
	schema, err := Schema(req, opts)
	if err != nil {
		return snapshot.QualifiedName{}, err
	}
	return snapshot.QualifiedName{Schema: schema, Name: req.Target}, nil
}

// target finds the relation a request addresses (targetName).
func target(req *request.Request, snap *snapshot.Snapshot, opts Options) (*snapshot.Relation, error) {
	name, err := targetName(req, opts)
	if err != nil {
		return nil, err
	}
	rel := snap.Relation(name)
	if rel == nil {
		return nil, undefinedRelation(snap, name, opts)
	}
	return rel, nil
}

// BuildRead plans a GET or HEAD on a relation.
func BuildRead(req *request.Request, snap *snapshot.Snapshot, opts Options) (*Read, error) {
	rel, err := target(req, snap, opts)
	if err != nil {
		return nil, err
	}
	p := &Read{Head: req.Method == "HEAD", Media: req.Media, Count: req.Prefer.Count, MaxRows: opts.MaxRows, Product: opts.Names.Product}
	if err := buildNode(&p.Node, snap, rel, req.Select, opts.Refresh); err != nil {
		return nil, err
	}
	p.Filters, p.Logic, p.Order = req.Filters, req.Logic, req.Order
	p.Offset, p.Limit = req.Range.Offset, capLimit(req.Range.Limit, opts.MaxRows)
	if err := applyEmbedParams(&p.Node, req.Embedded, opts.MaxRows, opts.LegacyTargetNames); err != nil {
		return nil, err
	}
	if err := checkStructure(&p.Node, snap, req.Select, opts); err != nil {
		return nil, err
	}
	if err := checkColumns(&p.Node, snap, opts.Refresh); err != nil {
		return nil, err
	}
	t := mediaTarget{rows: rel.QualifiedName, wholeRows: wholeRows(&p.Node)}
	if p.Media, p.Handler, err = negotiate(opts.Names, req, snap, t); err != nil {
		return nil, err
	}
	req.Media = p.Media
	p.SettingsUnset = !opts.PreRequest && quietRows(&p.Node, snap)
	return p, nil
}

// quietRows reports whether reading n's rows runs no function of the
// database's, which alone could set the response settings: tables only (a
// view may call any), no computed field or representation (Fields), no
// computed relationship, and a many-to-many embed only through a table.
func quietRows(n *Node, snap *snapshot.Snapshot) bool {
	if !isTable(n.Relation) || len(n.Fields) > 0 {
		return false
	}
	for _, e := range n.Embeds {
		r := e.Relationship
		if r.Computed() || r.Junction != nil && !isTable(snap.Relation(r.Junction.Table)) || !quietRows(&e.Node, snap) {
			return false
		}
	}
	return true
}

// isTable reports whether r is a table's rows, which no function of the
// database's produces.
func isTable(r *snapshot.Relation) bool {
	return r != nil && (r.Kind == snapshot.KindTable || r.Kind == snapshot.KindPartitionedTable)
}

// buildNode fills n's columns and embeds from a select list, finding the
// relationship of every embed, at every depth. As in PostgREST, that
// comes first: the columns named, and the rest of the tree, are checked
// once the whole tree is built (checkStructure, checkColumns).
func buildNode(n *Node, snap *snapshot.Snapshot, rel *snapshot.Relation, items []request.SelectItem, refresh Refresh) error {
	n.Relation = rel
	for _, item := range items {
		switch {
		case item.Star:
			n.Columns = append(n.Columns, Column{Star: true})
			n.starFields(snap)
		case item.Embed != nil:
			e, err := buildEmbed(snap, rel, item, n.Depth+1, refresh)
			if err != nil {
				return err
			}
			n.Embeds = append(n.Embeds, e)
			if e.Outputs() {
				n.Columns = append(n.Columns, Column{Embed: e})
			}
		case item.Aggregate == "count" && item.Field.Name == "":
			n.Columns = append(n.Columns, Column{Alias: item.Alias, Aggregate: "count", AggregateCast: item.AggregateCast})
		case legacyCount(snap, rel, item):
			n.Columns = append(n.Columns, Column{Alias: item.Alias, Aggregate: "count", AggregateCast: item.Cast})
		default:
			n.Columns = append(n.Columns, Column{Field: item.Field, Alias: item.Alias, Cast: item.Cast,
				Aggregate: item.Aggregate, AggregateCast: item.AggregateCast})
		}
	}
	if len(items) == 0 {
		n.Columns = []Column{{Star: true}}
		n.starFields(snap)
	}
	return nil
}

func buildEmbed(snap *snapshot.Snapshot, parent *snapshot.Relation, item request.SelectItem, depth int, refresh Refresh) (*Embed, error) {
	re := item.Embed
	r, err := findRelationship(snap, parent, re)
	if err != nil {
		return nil, staleRelationship(err, snap, refresh, parent, re.Name)
	}
	key := item.Alias
	if key == "" {
		key = re.Name
	}
	target := snap.Relation(r.ForeignTable)
	if target == nil {
		// The snapshot always holds both ends; a missing one is a damaged
		// snapshot, answered like any unknown relation.
		return nil, apierr.UndefinedTable(r.ForeignTable.String(), "")
	}
	e := &Embed{Relationship: r, Name: re.Name, Key: key, Inner: re.Join == request.JoinInner, Spread: re.Spread}
	e.Depth = depth
	if err := buildNode(&e.Node, snap, target, re.Select, refresh); err != nil {
		return nil, err
	}
	if len(re.Select) == 0 {
		e.Columns = nil // `rel()` outputs nothing
	}
	return e, nil
}

// applyEmbedParams hands each embed the parameters addressed to it by
// path, or answers SVC108 for a path that names no embed. Each step of a
// path names an embed by its key; failing that, with legacy
// (url-use-legacy-target-names), an aliased embed by its relation's name,
// as PostgREST allows (Embed.ByName). db-max-rows (maxRows) then caps
// every to-many embed, as PostgREST caps every level of a read.
func applyEmbedParams(root *Node, params map[string]*request.Params, maxRows int64, legacy bool) error {
	defer capEmbeds(root, maxRows)
	if len(params) == 0 {
		return nil // the usual case; sorting no keys still allocates
	}
	for _, path := range slices.Sorted(maps.Keys(params)) {
		p := params[path]
		n := root
		for _, name := range strings.Split(path, ".") {
			e := n.EmbedNamed(name)
			if e == nil {
				aliased := n.aliasedEmbed(name)
				switch {
				case aliased == nil:
					return apierr.NotEmbedded(name)
				case !legacy:
					return apierr.NotEmbeddedAlias(name, aliased.Key)
				}
				e = aliased
				e.ByName = true
			}
			n = &e.Node
		}
		n.Filters = append(n.Filters, p.Filters...)
		n.Logic = append(n.Logic, p.Logic...)
		n.Order = append(n.Order, p.Order...)
		if p.Limit != nil {
			n.Limit = p.Limit
		}
		if p.Offset != nil {
			n.Offset = *p.Offset
		}
	}
	return nil
}

// PresenceTest returns the embed whose presence filter f tests, or nil
// when f filters a column: it names an embed, with no path, and no column
// or computed field of the node's relation (planning resolved those into
// Fields).
func (n *Node) PresenceTest(f request.Filter) *Embed {
	if len(f.Field.Path) > 0 || n.Fields[f.Field.Name] != nil ||
		slices.ContainsFunc(n.Relation.Columns, func(c snapshot.Column) bool { return c.Name == f.Field.Name }) {
		return nil
	}
	return n.EmbedNamed(f.Field.Name)
}

// capEmbeds applies db-max-rows to the to-many embeds under n.
func capEmbeds(n *Node, maxRows int64) {
	if maxRows <= 0 {
		return
	}
	for _, e := range n.Embeds {
		if !e.ToOne() {
			e.Limit = capLimit(e.Limit, maxRows)
		}
		capEmbeds(&e.Node, maxRows)
	}
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
