package openapi

import (
	"encoding/json"
	"strings"

	"github.com/svc-dev/svc/snapshot"
)

// The versions of the description Build writes (Options.Format).
const (
	// Swagger2 is PostgREST's Swagger 2.0 document, the root's default.
	Swagger2 = "2.0"
	// OpenAPI31 is the OpenAPI 3.1 document.
	OpenAPI31 = "3.1"
)

// Formats are the values Options.Format takes, the default first.
var Formats = []string{Swagger2, OpenAPI31}

// serverURL is where the API is reached: the configured public URI, or
// the document's own location ("/" resolves against the URL the document
// was fetched from, so a client or the reference page calls the server
// that served it).
func (b *builder) serverURL() string {
	if b.opts.Host == "" {
		if b.opts.BasePath != "" {
			return b.opts.BasePath
		}
		return "/"
	}
	scheme := b.opts.Scheme
	if scheme == "" {
		scheme = "http"
	}
	return scheme + "://" + b.opts.Host + b.opts.BasePath
}

// rootPath31 describes GET / itself.
func rootPath31() *pathItem3 {
	return &pathItem3{Get: &operation3{
		OperationID: "get.root",
		Tags:        []string{"Introspection"},
		Summary:     "OpenAPI description (this document)",
		Description: "Swagger 2.0 by default; Accept: application/openapi+json;version=3.1 asks for OpenAPI 3.1.",
		Responses: map[string]*response3{
			"200": {Description: "OK", Content: map[string]*mediaType{"application/openapi+json": {Schema: &jsonSchema{Type: "object"}}}},
			"4XX": {Ref: ref3("responses", "Error")},
		},
	}}
}

// errorSchema is the object every SVC error is sent as.
func errorSchema() *jsonSchema {
	text := func(d string) *jsonSchema { return &jsonSchema{Type: []string{"string", "null"}, Description: d} }
	return &jsonSchema{
		Type:        "object",
		Description: "An SVC error.",
		Properties: map[string]*jsonSchema{
			"code":    {Type: "string", Description: "SVC code (SVCnnn) or PostgreSQL SQLSTATE."},
			"message": {Type: "string", Description: "What went wrong."},
			"details": text("More about it, if known."),
			"hint":    text("What to do about it, if known."),
		},
		Required: []string{"code", "message", "details", "hint"},
	}
}

// sharedParameters31 are the parameters operations refer to; relations
// add their row filters.
func sharedParameters31() map[string]*parameter3 {
	query := func(name, description string, s *jsonSchema) *parameter3 {
		return &parameter3{Name: name, In: "query", Description: description, Schema: s}
	}
	str := func() *jsonSchema { return &jsonSchema{Type: "string"} }
	zero := json.Number("0")
	count := &jsonSchema{Type: "integer", Minimum: &zero}
	prefer := func(description string, examples ...string) *parameter3 {
		return &parameter3{Name: "Prefer", In: "header", Description: description + " Several preferences are separated by commas.",
			Schema: &jsonSchema{Type: "string", Examples: examples}}
	}
	return map[string]*parameter3{
		"select": query("select", "Columns, computed fields and embedded relations to return, e.g. id,name,author:authors(name).", str()),
		"order":  query("order", "Ordering, e.g. year.desc.nullslast,id.", str()),
		"limit":  query("limit", "At most this many rows.", count),
		"offset": query("offset", "Skip this many rows.", count),
		"or":     query("or", "Rows matching any of the filters, e.g. (year.lt.1970,pages.gt.400).", str()),
		"and":    query("and", "Rows matching all of the filters, e.g. (year.gte.1970,year.lt.1980).", str()),
		"on_conflict": query("on_conflict",
			"Columns of the unique key an upsert resolves duplicates on (with Prefer: resolution=...).", str()),
		"columns": query("columns", "Columns the body's objects are read for; others are ignored.", str()),
		"range": {Name: "Range", In: "header", Description: "Rows wanted, as an offset range, e.g. 0-24.",
			Schema: &jsonSchema{Type: "string", Pattern: `^[0-9]+-[0-9]*$`}},
		"rangeUnit": {Name: "Range-Unit", In: "header", Description: "Unit of Range: items.",
			Schema: &jsonSchema{Type: "string", Default: "items"}},
		"preferRead": prefer("count=exact, planned or estimated asks for the total in Content-Range.",
			"count=exact", "count=planned", "count=estimated"),
		"preferWrite": prefer("return= chooses the response body; count= a total; tx= commit or rollback.",
			"return=representation", "return=minimal", "return=headers-only", "count=exact", "tx=rollback"),
		"preferInsert": prefer("As for writes, and resolution= makes the insert an upsert; missing=default fills omitted columns with their defaults.",
			"return=representation", "resolution=merge-duplicates", "resolution=ignore-duplicates", "missing=default"),
		"preferCall": prefer("params=single-object passes the whole body as one argument; count= asks for a total.",
			"params=single-object", "count=exact"),
	}
}

// filterRef is the schema of every row filter: the operators are
// explained once, not per column, since a large schema has thousands of
// filterable columns.
var filterRef = &jsonSchema{Ref: ref3("schemas", "Filter")}

// rowFilter31 refers to the row filter on column col of rel.
func rowFilter31(rel, col string) *parameter3 {
	return &parameter3{Ref: ref3("parameters", rowFilter(rel, col))}
}

// refs refers to shared parameters.
func refs(names ...string) []*parameter3 {
	out := make([]*parameter3, len(names))
	for i, n := range names {
		out[i] = &parameter3{Ref: ref3("parameters", n)}
	}
	return out
}

// handlers are the media types the schema's handlers render rows of r
// in: its own handlers and those taking any rows.
func (b *builder) handlers(r snapshot.QualifiedName) []string {
	var out []string
	for i := range b.snap.Content.MediaHandlers {
		h := &b.snap.Content.MediaHandlers[i]
		if h.Relation == r || h.AnyElement() {
			out = append(out, h.Media.Type)
		}
	}
	return out
}

// raw is the content of a body in a media type SVC passes through: text
// for textual types, any bytes otherwise.
func raw(media string) *mediaType {
	if strings.HasPrefix(media, "text/") {
		return &mediaType{Schema: &jsonSchema{Type: "string"}}
	}
	return &mediaType{}
}
