package openapi

import (
	"strings"

	"github.com/svc-dev/svc/snapshot"
)

// A domain the document uses is a schema component of its own, which
// the columns, arguments and results of that type refer to: its base
// type's schema and what its CHECK constraints say in JSON Schema. A
// domain over another refers to that one's component (allOf), so each
// domain's checks are stated once.

// domainKey names d's component: "schema.name", whose "." no relation's
// key has (componentName writes one as -2E), so the two never clash.
func domainKey(d *snapshot.Domain) string {
	return componentName(d.Schema) + "." + componentName(d.Name)
}

// typeSchema31 describes a value of type declared (as format_type prints
// it) whose base type is base: a reference to the domain's component
// when declared is a domain the snapshot keeps (for an array of one, its
// items), the type's own schema otherwise.
func (b *builder) typeSchema31(declared, base string) *jsonSchema {
	if d := b.snap.Domain(declared); d != nil {
		return b.domainRef(d)
	}
	s := valueSchema(declared, base)
	if elem, ok := strings.CutSuffix(declared, "[]"); ok && s.Items != nil {
		if d := b.snap.Domain(elem); d != nil {
			s.Items = b.domainRef(d)
		}
	}
	return s
}

// domainRef refers to d's component, adding it (and those of the domains
// under it) to the document the first time.
func (b *builder) domainRef(d *snapshot.Domain) *jsonSchema {
	key := domainKey(d)
	if _, ok := b.domainSchemas[key]; !ok {
		if b.domainSchemas == nil {
			b.domainSchemas = map[string]*jsonSchema{}
		}
		b.domainSchemas[key] = nil // a cycle cannot exist, but must not loop
		b.domainSchemas[key] = b.domainSchema(d)
	}
	return &jsonSchema{Ref: ref3("schemas", key)}
}

// domainSchema is d's component: its base type's schema (or a reference
// to its base domain's), narrowed by the checks JSON Schema can state
// (see checkReader). The checks it cannot state, and those added NOT
// VALID (stored values may break them), are quoted in its description, a
// standard field every reader shows, rather than in an x- extension.
func (b *builder) domainSchema(d *snapshot.Domain) *jsonSchema {
	base := b.finalBase(d)
	if b.represented(d) {
		return b.representedSchema(d)
	}
	var s *jsonSchema
	if under := b.snap.Domain(d.BaseType); under != nil {
		s = &jsonSchema{AllOf: []*jsonSchema{b.domainRef(under)}}
	} else {
		s = valueSchema(d.Type, base)
	}
	reader := newCheckReader(base, d.Nondeterministic)
	var kw keywords
	var unsaid []string
	for _, c := range d.Checks {
		if !c.Validated {
			unsaid = append(unsaid, "CHECK ("+c.Expr+") NOT VALID")
			continue
		}
		one, all := reader.read(c.Expr)
		kw.merge(&one)
		if !all {
			unsaid = append(unsaid, "CHECK ("+c.Expr+")")
		}
	}
	kw.apply(s)
	notes := []string{d.Description}
	if len(unsaid) > 0 {
		notes = append(notes, "Values must also pass: "+strings.Join(unsaid, "; ")+".")
	}
	s.Description = strings.TrimSpace(strings.Join(notes, "\n\n"))
	return s
}

// represented reports whether d, or a domain under it, has a domain
// representation: casts that make its JSON form whatever a function of
// the schema returns ("#ff0000" for an integer), which its base type and
// checks say nothing of.
func (b *builder) represented(d *snapshot.Domain) bool {
	for i := 0; d != nil && i < 64; i++ {
		if b.snap.Representation(d.Type, "json") != nil || b.snap.Representation("json", d.Type) != nil {
			return true
		}
		d = b.snap.Domain(d.BaseType)
	}
	return false
}

// representedSchema is the component of a represented domain: any JSON
// value, its checks quoted, as they apply to the stored value.
func (b *builder) representedSchema(d *snapshot.Domain) *jsonSchema {
	notes := []string{d.Description, "Read and written in the form the casts of " + d.Type + " to and from json give it."}
	var checks []string
	for _, c := range d.Checks {
		checks = append(checks, "CHECK ("+c.Expr+")")
	}
	if len(checks) > 0 {
		notes = append(notes, "Stored values must pass: "+strings.Join(checks, "; ")+".")
	}
	return &jsonSchema{Description: strings.TrimSpace(strings.Join(notes, "\n\n"))}
}

// finalBase is the type under d and every domain below it.
func (b *builder) finalBase(d *snapshot.Domain) string {
	for range 64 { // deeper stacks do not exist; this only bounds a damaged snapshot
		under := b.snap.Domain(d.BaseType)
		if under == nil {
			break
		}
		d = under
	}
	return d.BaseType
}

// domainNotNull reports whether typ is a domain that refuses null,
// itself or through a domain under it.
func (b *builder) domainNotNull(typ string) bool {
	d := b.snap.Domain(typ)
	for i := 0; d != nil && i < 64; i++ {
		if d.NotNull {
			return true
		}
		d = b.snap.Domain(d.BaseType)
	}
	return false
}

// merge narrows kw by what o says.
func (kw *keywords) merge(o *keywords) {
	if o.min != nil {
		kw.min = higher(kw.min, o.min)
	}
	if o.exMin != nil {
		kw.exMin = higher(kw.exMin, o.exMin)
	}
	if o.max != nil {
		kw.max = lower(kw.max, o.max)
	}
	if o.exMax != nil {
		kw.exMax = lower(kw.exMax, o.exMax)
	}
	if o.minLength != nil && (kw.minLength == nil || *kw.minLength < *o.minLength) {
		kw.minLength = o.minLength
	}
	if o.maxLength != nil && (kw.maxLength == nil || *kw.maxLength > *o.maxLength) {
		kw.maxLength = o.maxLength
	}
	kw.patterns = append(kw.patterns, o.patterns...)
	if o.enum != nil {
		kw.narrowEnum(o.enum)
	}
}
