package query

import (
	"strconv"
	"strings"

	"github.com/svc-dev/svc/server/request"
)

// builder accumulates SQL text and the bind arguments it refers to.
type builder struct {
	sql     strings.Builder
	args    []any
	sources []Source // where each of args came from
}

// newBuilder returns a builder sized for a typical read, so the statement
// text is not regrown several times per request.
func newBuilder() *builder {
	b := &builder{args: make([]any, 0, 8), sources: make([]Source, 0, 8)}
	b.sql.Grow(1024)
	return b
}

func (b *builder) write(parts ...string) {
	for _, p := range parts {
		b.sql.WriteString(p)
	}
}

// ident writes a quoted identifier, qualified when several parts are given.
// It writes straight into the buffer: quoting is on every request's path and
// pgx.Identifier.Sanitize allocates a slice and strings per call.
func (b *builder) ident(parts ...string) {
	for i, p := range parts {
		if i > 0 {
			b.sql.WriteByte('.')
		}
		writeQuoted(&b.sql, p)
	}
}

// writeQuoted writes s as a double-quoted identifier. NUL bytes are dropped
// (PostgreSQL cannot take them in query text), embedded quotes doubled.
func writeQuoted(w *strings.Builder, s string) {
	w.WriteByte('"')
	for {
		i := strings.IndexAny(s, "\"\x00")
		if i < 0 {
			break
		}
		w.WriteString(s[:i])
		if s[i] == '"' {
			w.WriteString(`""`)
		}
		s = s[i+1:]
	}
	w.WriteString(s)
	w.WriteByte('"')
}

// arg adds a bind parameter the statement's shape fixes, and writes its
// placeholder.
func (b *builder) arg(v any) { b.bind(v, Source{}) }

// value adds a bind parameter taken from the request but from no single
// query parameter (a payload, a variadic array), and writes its
// placeholder. It ties the statement to its request: Shape refuses to
// keep it.
func (b *builder) value(v any) { b.bind(v, Source{Slot: -1}) }

// payload adds the write's JSON body (request.Payload.JSON) as a bind
// parameter and writes its placeholder. Unlike other values from the
// request, it may be taken out (WriteShape) and bound again (BindPayload).
func (b *builder) payload(v []byte) { b.bind(v, Source{Slot: PayloadSlot}) }

// parameter adds v, the whole value of the query parameter in slot (0 when
// it is not one parameter's), as a bind parameter, and writes its
// placeholder.
func (b *builder) parameter(slot int, v string) {
	if slot == 0 {
		b.value(v)
		return
	}
	b.bind(v, Source{Slot: slot, Part: WholeValue})
}

// operand adds the part-th operand value of filter f (see OperandArg) as
// a bind parameter, and writes its placeholder.
func (b *builder) operand(f request.Filter, part int) {
	src := Source{Slot: f.Slot, Part: part}
	if f.Slot == 0 {
		src.Slot = -1
	}
	b.bind(OperandArg(f, part), src)
}

func (b *builder) bind(v any, src Source) {
	b.args = append(b.args, v)
	b.sources = append(b.sources, src)
	b.sql.WriteByte('$')
	b.sql.WriteString(strconv.Itoa(len(b.args)))
}

// sub returns a builder that writes text of its own but binds into b's
// arguments; rejoin takes its bindings back into b.
func (b *builder) sub() builder { return builder{args: b.args, sources: b.sources} }

// rejoin takes back the arguments sub-builder s, made by b.sub, bound.
func (b *builder) rejoin(s *builder) { b.args, b.sources = s.args, s.sources }

// statement is what b built.
func (b *builder) statement() Statement {
	return Statement{SQL: b.sql.String(), Args: b.args, Sources: b.sources}
}

// list writes n items with ", " between them; item writes the i-th.
func (b *builder) list(n int, item func(i int)) {
	for i := range n {
		if i > 0 {
			b.sql.WriteString(", ")
		}
		item(i)
	}
}
