package snapshot

import "sync/atomic"

// index is built once after decoding so the request path does map lookups
// only, never a scan over the content.
type index struct {
	relations map[QualifiedName]*Relation
	// columns is kept only for wide relations: a linear scan of a dozen
	// names is as fast as a map lookup, and one map per relation was a
	// tenth of the load time of a 2,500-relation snapshot.
	columns       map[*Relation]map[string]*Column
	functions     map[QualifiedName][]*Function
	relationships map[QualifiedName][]*Relationship
	roles         map[string]int // the role's index in Content.Roles
	// access holds, by the same index, each role's effective privileges
	// (AccessOf), computed on first use: the snapshot never changes, and
	// a request that writes or calls asks for them.
	access []atomic.Pointer[Access]
	// grantees are the roles some grant names (PUBLIC included): only
	// they tell one role's privileges from another's (Access.Key).
	grantees map[string]bool
	// representations holds each cast's function by its source and
	// target types.
	representations map[castTypes]*QualifiedName
	// handlers holds the media handlers by relation (zero for
	// anyelement) and media type.
	handlers map[handlerKey]*MediaHandler
	// domains holds the domains by Type, as columns name them.
	domains map[string]*Domain
}

// handlerKey is what a media handler is looked up by.
type handlerKey struct {
	relation QualifiedName
	media    string
}

// castTypes are a cast's source and target types.
type castTypes struct{ source, target string }

func (s *Snapshot) buildIndex() {
	c := &s.Content
	ix := index{
		relations:     make(map[QualifiedName]*Relation, len(c.Relations)),
		columns:       make(map[*Relation]map[string]*Column),
		functions:     make(map[QualifiedName][]*Function, len(c.Functions)),
		relationships: make(map[QualifiedName][]*Relationship),
		roles:         make(map[string]int, len(c.Roles)),
		access:        make([]atomic.Pointer[Access], len(c.Roles)),
		grantees:      map[string]bool{},
	}
	if len(c.Casts) > 0 {
		ix.representations = make(map[castTypes]*QualifiedName, len(c.Casts))
	}
	for i := range c.Casts {
		cast := &c.Casts[i]
		ix.representations[castTypes{cast.Source, cast.Target}] = &cast.Function
	}
	for i := range c.Relations {
		r := &c.Relations[i]
		ix.relations[r.QualifiedName] = r
		ix.addGrantees(r.Grants)
		for j := range r.Columns {
			ix.addGrantees(r.Columns[j].Grants)
		}
		if len(r.Columns) <= wideRelation {
			continue
		}
		cols := make(map[string]*Column, len(r.Columns))
		for j := range r.Columns {
			cols[r.Columns[j].Name] = &r.Columns[j]
		}
		ix.columns[r] = cols
	}
	for i := range c.Functions {
		f := &c.Functions[i]
		ix.functions[f.QualifiedName] = append(ix.functions[f.QualifiedName], f)
		ix.addGrantees(f.Grants)
	}
	for i := range c.Relationships {
		r := &c.Relationships[i]
		ix.relationships[r.Table] = append(ix.relationships[r.Table], r)
	}
	for i := range c.Roles {
		ix.roles[c.Roles[i].Name] = i
	}
	if len(c.MediaHandlers) > 0 {
		ix.handlers = make(map[handlerKey]*MediaHandler, len(c.MediaHandlers))
	}
	for i := range c.MediaHandlers {
		h := &c.MediaHandlers[i]
		k := handlerKey{h.Relation, h.Media.Type}
		// Two aggregates for one relation and media type (in two
		// schemas): the first in the content's order wins, so every
		// server picks the same one.
		if ix.handlers[k] == nil {
			ix.handlers[k] = h
		}
	}
	if len(c.Domains) > 0 {
		ix.domains = make(map[string]*Domain, len(c.Domains))
	}
	for i := range c.Domains {
		ix.domains[c.Domains[i].Type] = &c.Domains[i]
	}
	s.idx = ix
}

func (ix *index) addGrantees(grants []Grant) {
	for _, g := range grants {
		ix.grantees[g.Grantee] = true
	}
}

// Relation returns the relation named q, or nil.
func (s *Snapshot) Relation(q QualifiedName) *Relation { return s.idx.relations[q] }

// wideRelation is the column count above which Column uses a map.
const wideRelation = 24

// Column returns the column of r named name, or nil.
func (s *Snapshot) Column(r *Relation, name string) *Column {
	if len(r.Columns) > wideRelation {
		return s.idx.columns[r][name]
	}
	for i := range r.Columns {
		if r.Columns[i].Name == name {
			return &r.Columns[i]
		}
	}
	return nil
}

// Functions returns the overloads of the function named q.
func (s *Snapshot) Functions(q QualifiedName) []*Function { return s.idx.functions[q] }

// RelationshipsFrom returns every relationship whose Table is q.
func (s *Snapshot) RelationshipsFrom(q QualifiedName) []*Relationship {
	return s.idx.relationships[q]
}

// Role returns the role named name, or nil.
func (s *Snapshot) Role(name string) *Role {
	i, ok := s.idx.roles[name]
	if !ok {
		return nil
	}
	return &s.Content.Roles[i]
}

// ComputedField returns the computed field of r named name, or nil.
// Relations have a handful at most, so a scan beats a map.
func (s *Snapshot) ComputedField(r *Relation, name string) *ComputedField {
	for i := range r.ComputedFields {
		if r.ComputedFields[i].Function.Name == name {
			return &r.ComputedFields[i]
		}
	}
	return nil
}

// HasRepresentations reports whether the snapshot holds any cast, so
// planning skips looking for one in the usual schema that has none.
func (s *Snapshot) HasRepresentations() bool { return len(s.idx.representations) > 0 }

// Representation returns the function of the cast from type source to
// type target (as format_type prints them, like Column.Type), or nil when
// there is none: a domain's representation in JSON is
// Representation(domain, "json"), its parser from a filter value
// Representation("text", domain).
func (s *Snapshot) Representation(source, target string) *QualifiedName {
	return s.idx.representations[castTypes{source, target}]
}

// MediaHandler returns the aggregate rendering rows of the relation named
// rel for the media type media (lowercased), or nil; the zero rel asks for
// the handler of any relation's rows (an aggregate over anyelement).
func (s *Snapshot) MediaHandler(rel QualifiedName, media string) *MediaHandler {
	return s.idx.handlers[handlerKey{rel, media}]
}

// HasMediaHandlers reports whether the schema defines any media handler,
// so negotiation skips looking for one in the usual schema that has none.
func (s *Snapshot) HasMediaHandlers() bool { return len(s.idx.handlers) > 0 }

// Domain returns the domain whose Type is typ (as format_type prints it,
// like Column.Type and Argument.Type), or nil when typ is no domain the
// snapshot keeps.
func (s *Snapshot) Domain(typ string) *Domain { return s.idx.domains[typ] }

// DomainNamed returns the domain named q, or nil: a function's
// ReturnType names its result type this way.
func (s *Snapshot) DomainNamed(q QualifiedName) *Domain {
	for i := range s.Content.Domains {
		if s.Content.Domains[i].QualifiedName == q {
			return &s.Content.Domains[i]
		}
	}
	return nil
}
