package plan

import (
	"encoding/json"
	"slices"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// WriteKind is the statement a write runs.
type WriteKind int

// The writes: POST, PATCH, DELETE and PUT (a single-row upsert).
const (
	Insert WriteKind = iota
	Update
	Delete
	Put
)

// Write is a planned POST, PATCH, PUT or DELETE.
type Write struct {
	Kind     WriteKind
	Relation *snapshot.Relation
	// Payload is the body; nil for DELETE.
	Payload *request.Payload
	// Columns are the payload's keys, as columns of Relation.
	Columns []*snapshot.Column
	// Parse holds, per Columns, the function that reads the column's body
	// values (a domain's cast from json), nil for a column without one;
	// Parse is nil when no column has one.
	Parse []*snapshot.QualifiedName
	// Filters and Logic choose the rows PATCH and DELETE touch; Fields
	// resolves the names they and Order use (see Node.Fields).
	Filters []request.Filter
	Logic   []request.LogicTree
	Fields  map[string]*Field
	// Order, Limit and Offset cap the rows PATCH and DELETE touch.
	Order  []request.OrderTerm
	Limit  *int64
	Offset int64
	// Return is the return preference: minimal, headers-only or
	// representation.
	Return string
	// Read shapes the representation: its root reads the written rows.
	Read *Read
	// Conflict is the upsert's conflict target (nil: not an upsert) and
	// IgnoreDuplicates its resolution.
	Conflict         []string
	IgnoreDuplicates bool
	// MissingDefault fills keys a row lacks with the column default.
	MissingDefault bool
}

// Upsert reports whether rows may be updated instead of inserted (POST
// with a resolution, or PUT), so the answer must tell how many were
// inserted.
func (w *Write) Upsert() bool { return w.Conflict != nil }

// BuildWrite plans a write of req's relation with payload (nil for DELETE).
func BuildWrite(req *request.Request, payload *request.Payload, snap *snapshot.Snapshot, opts Options) (*Write, error) {
	rel, err := WriteTarget(req, snap, opts)
	if err != nil {
		return nil, err
	}
	w := &Write{Relation: rel, Payload: payload, Filters: req.Filters, Logic: req.Logic, Order: req.Order,
		Limit: req.Range.Limit, Offset: req.Range.Offset, Return: req.Prefer.Return,
		MissingDefault: req.Prefer.Missing == "default"}
	switch req.Method {
	case "POST":
		w.Kind = Insert
	case "PATCH":
		w.Kind = Update
	case "DELETE":
		w.Kind = Delete
	case "PUT":
		w.Kind = Put
	}
	if w.Return == "" {
		w.Return = "minimal"
	}
	if w.Kind == Put && (w.Limit != nil || w.Offset > 0) {
		return nil, apierr.PutWithLimit()
	}
	w.Read = &Read{Media: req.Media, Count: req.Prefer.Count, Product: opts.Names.Product}
	if err := buildNode(&w.Read.Node, snap, rel, req.Select, opts.Refresh); err != nil {
		return nil, err
	}
	// The order also orders the representation, as in PostgREST.
	w.Read.Node.Order = req.Order
	if err := applyEmbedParams(&w.Read.Node, req.Embedded, opts.MaxRows, opts.LegacyTargetNames); err != nil {
		return nil, err
	}
	if err := checkStructure(&w.Read.Node, snap, req.Select, opts); err != nil {
		return nil, err
	}
	// As in PostgREST, PUT's filters are judged by their form before
	// their columns are looked up.
	if w.Kind == Put && !putFilters(req, rel) {
		return nil, apierr.InvalidPutFilters()
	}
	rows := &Node{Relation: w.Relation, Filters: w.Filters, Logic: w.Logic, Order: w.Order}
	if err := w.checkRows(rows, snap); err != nil {
		return nil, err
	}
	if payload != nil {
		for _, key := range payload.Keys {
			col := snap.Column(rel, key)
			if col == nil {
				// A column added (or renamed) since the snapshot was
				// taken is unknown until it is reloaded.
				return nil, apierr.UnknownPayloadColumn(rel.Name, key).
					WithAdvice(staleAdvice(snap, opts.Refresh, "a column \""+key+"\" of "+rel.Name, "added"))
			}
			w.Columns = append(w.Columns, col)
		}
		if w.Kind == Update && payload.Rows == 0 {
			// [] holds no values to set, whatever columns= lists: the
			// PATCH changes no row, as with {}.
			w.Columns = nil
		}
		w.Parse = payloadParsers(snap, w.Columns)
	}
	// Columns last, as PostgreSQL would find them in PostgREST's
	// statement.
	if err := checkColumns(&w.Read.Node, snap, opts.Refresh); err != nil {
		return nil, err
	}
	if err := checkColumns(rows, snap, opts.Refresh); err != nil {
		return nil, err
	}
	w.Fields = rows.Fields
	switch w.Kind {
	case Insert:
		// Without on_conflict the primary key is the conflict target; a
		// relation without one has none, and the write is a plain insert.
		if req.Prefer.Resolution != "" && (req.OnConflict != nil || len(rel.PrimaryKey) > 0) {
			w.Conflict = req.OnConflict
			if w.Conflict == nil {
				w.Conflict = rel.PrimaryKey
			}
			w.IgnoreDuplicates = req.Prefer.Resolution == "ignore-duplicates"
		}
	case Put:
		if err := w.checkPut(); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// checkRows checks what the filters and order choosing the rows of a
// write (rows) ask of embeds, which it has none of, and that a limit comes
// with an order.
func (w *Write) checkRows(rows *Node, snap *snapshot.Snapshot) error {
	if err := checkRelatedOrders(rows); err != nil {
		return err
	}
	if err := checkEmbedFilters(rows, snap); err != nil {
		return err
	}
	if (w.Kind == Update || w.Kind == Delete) && (w.Limit != nil || w.Offset > 0) && len(w.Order) == 0 {
		return apierr.LimitWithoutOrder()
	}
	return nil
}

// putFilters reports whether req's filters are those PUT takes: eq,
// without a modifier, on every column of rel's primary key and on no
// other column, and no logic tree.
func putFilters(req *request.Request, rel *snapshot.Relation) bool {
	pk := rel.PrimaryKey
	if len(pk) == 0 || len(req.Logic) > 0 {
		return false
	}
	var filtered []string
	for _, f := range req.Filters {
		if f.Op != "eq" || f.Negate || f.Quantifier != "" || len(f.Field.Path) > 0 {
			return false
		}
		filtered = append(filtered, f.Field.Name)
	}
	// A key column filtered twice is still the key: PostgREST compares
	// the sets of names.
	slices.Sort(filtered)
	return slices.Equal(slices.Compact(filtered), slices.Sorted(slices.Values(pk)))
}

// checkPut readies PUT's upsert. The rows it writes are those of the
// body whose key matches the URL's filters, compared by PostgreSQL as the
// key's type (query.Write); exactly one must, which the server checks
// once they are written (SVC115). A body without every key column holds
// none.
func (w *Write) checkPut() error {
	for _, name := range w.Relation.PrimaryKey {
		if !slices.ContainsFunc(w.Columns, func(c *snapshot.Column) bool { return c.Name == name }) {
			return apierr.PutMismatch()
		}
	}
	w.Conflict = w.Relation.PrimaryKey
	return nil
}

// JSONText is a JSON value as PostgreSQL's ->> would give it: strings
// unquoted, anything else as written. Filters compare with it, and a
// Location header renders key values with it.
func JSONText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
