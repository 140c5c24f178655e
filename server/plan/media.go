package plan

import (
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// Handler renders a response body through the schema: a media type
// handler (an aggregate over the rows), or the value of a function that
// returns the media type itself.
type Handler struct {
	// Send turns the rendered value into the body's bytes (the send
	// function of the media type's domain).
	Send snapshot.QualifiedName
	// Aggregate renders the rows; nil when the body is a function's value.
	Aggregate *snapshot.QualifiedName
	// Relation is the row type Aggregate takes; nil for anyelement.
	Relation *snapshot.QualifiedName
}

// Textual reports whether the body's bytes are the value's text, so the
// statement can answer it as text rather than hex-encoded bytes: the
// send functions of text, varchar, json and xml send the text itself.
func (h *Handler) Textual() bool {
	if h.Send.Schema != "pg_catalog" {
		return false
	}
	switch h.Send.Name {
	case "textsend", "varcharsend", "json_send", "xml_send":
		return true
	}
	return false
}

// mediaTarget is what a response renders, for negotiation: rows of a
// relation (a read, or a call returning rows) or a function's value.
type mediaTarget struct {
	// rows names the relation (or composite type) whose rows are read;
	// the zero name for a function's value.
	rows snapshot.QualifiedName
	// fn is the function whose value is the body; nil for rows.
	fn *snapshot.Function
	// wholeRows is set when the rows are read as stored (select=*, no
	// embeds): only then does a relation's own handler, which takes its
	// row type, apply.
	wholeRows bool
}

// negotiate picks the representation of the response from the request's
// Accept ranges in order of preference, as PostgREST does: SVC's vendor
// types first (the schema cannot take them over), then for each range a
// handler of the relation (its `*/*` one answering any range), a
// function's own media type, an anyelement handler, and last what SVC
// renders itself, the vendor types those of naming n. Nothing is SVC107.
func negotiate(n apierr.Naming, req *request.Request, snap *snapshot.Snapshot, t mediaTarget) (request.Media, *Handler, error) {
	if req.AcceptRanges == nil {
		// Built by hand rather than parsed (tests): SVC's own pick.
		return req.Media, nil, refuseUnrendered(n, req)
	}
	for _, r := range req.AcceptRanges {
		builtin, ok := req.BuiltinMedia(n, r)
		if ok && builtin.IsVendor() {
			if builtin.Kind == request.MediaPlan && builtin.PlanFor == request.MediaHandler {
				inner, h := t.handler(snap, builtin.PlanForName)
				if h == nil {
					continue
				}
				builtin.PlanForName = inner.Name
				return builtin, h, nil
			}
			return builtin, nil, nil
		}
		if m, h := t.handler(snap, r.Type); h != nil {
			return m, h, nil
		}
		if ok {
			return builtin, nil, nil
		}
	}
	return request.Media{}, nil, apierr.UnsupportedMediaType(n, req.Accept)
}

// handler finds the schema's handler of media type typ for t, and the
// media it answers with; nil when there is none.
func (t mediaTarget) handler(snap *snapshot.Snapshot, typ string) (request.Media, *Handler) {
	if t.fn != nil {
		d := t.fn.Media
		if d == nil {
			d = rawMedia(t.fn)
		}
		if d != nil && (d.Type == "*/*" || d.Type == typ) {
			return handlerMedia(d), &Handler{Send: d.Send}
		}
		return request.Media{}, nil
	}
	if !snap.HasMediaHandlers() || t.rows == (snapshot.QualifiedName{}) {
		// A function returning nothing (void) has no rows to aggregate.
		return request.Media{}, nil
	}
	var mh *snapshot.MediaHandler
	if t.wholeRows {
		if mh = snap.MediaHandler(t.rows, "*/*"); mh == nil {
			mh = snap.MediaHandler(t.rows, typ)
		}
	}
	if mh == nil {
		mh = snap.MediaHandler(snapshot.QualifiedName{}, typ)
	}
	if mh == nil {
		return request.Media{}, nil
	}
	h := &Handler{Send: mh.Media.Send, Aggregate: &mh.Aggregate}
	if !mh.AnyElement() {
		h.Relation = &mh.Relation
	}
	return handlerMedia(&mh.Media), h
}

// handlerMedia is the representation a handler of d answers with: d's
// media type, or application/octet-stream for a `*/*` handler, whose
// function may name another one in response.headers.
func handlerMedia(d *snapshot.MediaDomain) request.Media {
	m := request.Media{Kind: request.MediaHandler, Name: d.Type,
		Binary: !(&Handler{Send: d.Send}).Textual()}
	if d.Type == "*/*" {
		m.Name = "application/octet-stream"
	}
	return m
}

// rawMedia is the media type a function returning text, xml or bytea
// answers its value as, as is: text/plain, text/xml and
// application/octet-stream. Nil for other functions.
func rawMedia(fn *snapshot.Function) *snapshot.MediaDomain {
	if fn.Returns != snapshot.ReturnsScalar || fn.ReturnType.Schema != "pg_catalog" {
		return nil
	}
	send := func(name string) snapshot.QualifiedName {
		return snapshot.QualifiedName{Schema: "pg_catalog", Name: name}
	}
	switch fn.ReturnType.Name {
	case "text":
		return &snapshot.MediaDomain{Type: "text/plain", Send: send("textsend")}
	case "xml":
		return &snapshot.MediaDomain{Type: "text/xml", Send: send("xml_send")}
	case "bytea":
		return &snapshot.MediaDomain{Type: "application/octet-stream", Send: send("byteasend")}
	}
	return nil
}

// refuseUnrendered is SVC107 for a request whose Accept names only media
// types SVC does not render itself, where no media handler can answer
// (writes), or a plan for one.
func refuseUnrendered(n apierr.Naming, req *request.Request) error {
	m := req.Media
	if m.Kind == request.MediaNone || (m.Kind == request.MediaPlan && m.PlanFor == request.MediaHandler) {
		return apierr.UnsupportedMediaType(n, req.Accept)
	}
	return nil
}

// wholeRows reports whether n reads its relation's rows as stored: `*`
// alone, with no embed (not even one only filtering).
func wholeRows(n *Node) bool {
	return len(n.Columns) == 1 && n.Columns[0].Star && len(n.Embeds) == 0
}
