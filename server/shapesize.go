package server

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/svc-dev/svc/server/request"
)

// What a kept shape costs the heap, estimated for the shape cache's
// server-shape-cache-max-bytes. The estimate counts what grows with the
// request (the statement's text, its arguments, the template key, texts
// taken from headers) and a fixed part for the rest; TestShapeBytesCoverHeap
// measures the heap kept shapes hold and fails when the estimate falls
// below it. It holds because a kept shape shares nothing with its
// request: Statement.Shape copies what the statements keep of the URL,
// and detach what the shape keeps of the headers, so no kept shape keeps
// a request's text alive beyond what it counts.

// shapeOverhead is what a kept shape costs besides what bytes counts:
// the cache's list element and map entry.
const shapeOverhead = 512

// bytes estimates the memory b holds once kept.
func (b bound) bytes() int {
	n := b.main.Bytes()
	if b.count != nil {
		n += b.count.Bytes()
	}
	return n
}

func (e *readEntry) bytes() int {
	return int(unsafe.Sizeof(*e)) + e.txShape.bytes() + e.reply.bytes() + e.stmts.bytes()
}

func (e *callEntry) bytes() int {
	n := int(unsafe.Sizeof(*e)) + e.txShape.bytes() + mediaBytes(&e.media) + e.stmts.bytes()
	if e.rows != nil {
		n += int(unsafe.Sizeof(*e.rows)) + e.rows.bytes()
	}
	return n
}

// bytes counts the texts sh holds; the schema's is the snapshot's.
func (sh *txShape) bytes() int {
	p := &sh.prefer
	n := len(sh.searchPath) + len(p.Return) + len(p.Count) + len(p.Resolution) + len(p.Missing) +
		len(p.Handling) + len(p.Timezone) + len(p.Tx) + len(p.Params)
	if p.MaxAffected != nil {
		n += int(unsafe.Sizeof(*p.MaxAffected))
	}
	for _, s := range p.Invalid {
		n += int(unsafe.Sizeof(s)) + len(s)
	}
	return n
}

// bytes counts the texts r holds.
func (r *rowsReply) bytes() int { return len(r.location) + len(r.head) + mediaBytes(&r.media) }

// mediaBytes counts the texts m holds.
func mediaBytes(m *request.Media) int {
	n := len(m.Name) + len(m.PlanForName)
	for _, o := range m.PlanOptions {
		n += int(unsafe.Sizeof(o)) + len(o)
	}
	return n
}

// detach copies the texts sh took from the request's headers, so that a
// kept shape does not keep the headers alive.
func (sh *txShape) detach() {
	p := &sh.prefer
	for _, s := range []*string{&p.Return, &p.Count, &p.Resolution, &p.Missing, &p.Handling, &p.Timezone, &p.Tx, &p.Params} {
		*s = strings.Clone(*s)
	}
	p.Invalid = cloneTexts(p.Invalid)
}

// detachMedia copies the texts m took from the request's Accept header.
func detachMedia(m *request.Media) {
	m.Name, m.PlanForName = strings.Clone(m.Name), strings.Clone(m.PlanForName)
	m.PlanOptions = cloneTexts(m.PlanOptions)
}

// cloneTexts copies ss and each of its texts; nil stays nil.
func cloneTexts(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := slices.Clone(ss)
	for i := range out {
		out[i] = strings.Clone(out[i])
	}
	return out
}
