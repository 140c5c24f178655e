package query

import (
	"github.com/svc-dev/svc/server/plan"
)

// handlerBody writes the body a media handler renders: arg writes the
// value (the aggregate's input rows, or the function's value), and the
// result is text, the value's own for a textual media type, else its
// binary form hex-encoded for the server to decode (request.Media.Binary).
// The bytes are the send function's, so they are what PostgREST answers
// with, whatever bytea_output says.
func handlerBody(b *builder, h *plan.Handler, arg func()) {
	value := arg
	if h.Aggregate != nil {
		value = func() {
			b.call(h.Aggregate, func() {
				arg()
				if h.Relation != nil {
					// A relation's own handler takes its row type; the
					// rows are read as stored, so the record converts.
					b.write("::")
					b.ident(h.Relation.Schema, h.Relation.Name)
				}
			})
		}
	}
	if h.Textual() {
		b.write("(")
		value()
		b.write(")::text")
		return
	}
	b.write("pg_catalog.encode(")
	b.call(&h.Send, value)
	b.write(", 'hex')")
}
