package openapi

import (
	"github.com/svc-dev/svc/snapshot"
)

// resultResponses describes what a call of one of overloads answers: 204
// for a void function; otherwise 200 with its result in JSON (a value, an
// object per row, an array of either), as the vendor object type, as CSV,
// in the media type of a function returning a media domain, and in those
// of the handlers of the relation it returns. Overloads returning
// differently shaped results are described by the first one's result
// only where they agree; otherwise any JSON value.
func (b *builder) resultResponses(overloads []*snapshot.Function) map[string]*response3 {
	f := overloads[0]
	for _, o := range overloads[1:] {
		if o.Returns != f.Returns || o.ReturnType != f.ReturnType {
			return map[string]*response3{"200": {Description: "The function's result.",
				Content: map[string]*mediaType{"application/json": {}}}}
		}
	}
	if f.Returns == snapshot.ReturnsVoid {
		return map[string]*response3{"204": {Description: "The function returns nothing."}}
	}
	if f.Media != nil {
		return map[string]*response3{"200": {Description: "The function's result, as " + f.Media.Type + ".",
			Content: map[string]*mediaType{f.Media.Type: raw(f.Media.Type)}}}
	}
	var one *jsonSchema
	switch f.Returns {
	case snapshot.ReturnsComposite, snapshot.ReturnsSetOfComposite:
		one = b.compositeSchema(f)
	default:
		if d := b.snap.DomainNamed(f.ReturnType); d != nil {
			one = nullable(b.domainRef(d))
		} else {
			one = nullable(valueSchema(snapshot.FormatTypeName(f.ReturnType.Name), snapshot.FormatTypeName(f.ReturnType.Name)))
		}
	}
	result := one
	if f.Returns == snapshot.ReturnsSetOfComposite || f.Returns == snapshot.ReturnsSetOfScalar {
		result = &jsonSchema{Type: "array", Items: one}
	}
	v := "application/vnd." + b.opts.Vendor
	content := map[string]*mediaType{
		"application/json":                {Schema: result},
		v + ".object+json":                {Schema: one},
		v + ".object+json;nulls=stripped": {Schema: one},
		"text/csv":                        {Schema: &jsonSchema{Type: "string"}},
	}
	if f.Returns == snapshot.ReturnsComposite || f.Returns == snapshot.ReturnsSetOfComposite {
		for _, m := range b.handlers(f.ReturnType) {
			content[m] = raw(m)
		}
	}
	return map[string]*response3{"200": {Description: "The function's result.", Content: content,
		Headers: map[string]*header3{"Content-Range": contentRange}}}
}

// compositeSchema describes a row a function returns: the relation's row
// schema when the document describes that relation, an object otherwise
// (a composite type, a record, a table of its own).
func (b *builder) compositeSchema(f *snapshot.Function) *jsonSchema {
	if f.ReturnType.Schema == b.opts.Schema {
		if r := b.snap.Relation(f.ReturnType); r != nil && b.operations(r).get {
			return &jsonSchema{Ref: ref3("schemas", componentName(r.Name))}
		}
	}
	return &jsonSchema{Type: "object"}
}
