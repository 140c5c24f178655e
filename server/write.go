package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/server/shapes"
	"github.com/svc-dev/svc/snapshot"
)

// planWrite plans a write to a relation (POST, PATCH, PUT, DELETE),
// parsed. The body is read here, once the role is known to be allowed
// the write.
func (s *Server) planWrite(x *exchange, req *request.Request) (*plan.Write, error) {
	r := x.r
	var payload *request.Payload
	if r.Method != http.MethodDelete {
		if err := s.refuseWrite(req, x.snap, x.tx); err != nil {
			return nil, err
		}
		var lines *request.Lines
		var err error
		payload, lines, err = request.WriteBody(x.w, r, req, s.bodyLimits)
		if lines != nil {
			x.lines = &linesBody{lines: lines}
		}
		if err != nil {
			return nil, err
		}
	}
	p, err := plan.BuildWrite(req, payload, x.snap, s.planOptions())
	if err != nil {
		return nil, err
	}
	if r.Method == http.MethodPatch && payload.Rows > 1 {
		return nil, apierr.InvalidBody("Empty or invalid json", "PATCH takes one JSON object")
	}
	return p, nil
}

// buildWrite builds the statement of write p; for the plan media type,
// its EXPLAIN, which only options=analyze runs, and then the transaction
// ends as any other (Prefer: tx=rollback).
func (s *Server) buildWrite(x *exchange, req *request.Request, p *plan.Write) (action, error) {
	tx := s.newTxShape(req.Prefer, p.Relation.Schema)
	if req.Media.Kind == request.MediaPlan {
		return explainOf(tx, p, req.Media), nil
	}
	x.stmts = shapes.Stmts{Main: s.writeStatement(x, req, p)}
	return &writeAction{tx: tx, req: req, plan: p}, nil
}

// writeAction is the action of a write.
type writeAction struct {
	tx   txShape
	req  *request.Request
	plan *plan.Write
}

func (a *writeAction) begin(s *Server, x *exchange) error {
	if err := s.readyTx(x, &a.tx); err != nil {
		return err
	}
	x.tx.Check = writeChecks(a.req, a.plan, &x.res)
	return nil
}

func (a *writeAction) run(s *Server, x *exchange) error {
	row := dbexec.ScanResult(&x.res)
	// A streamed header may leave before respond: it says what was
	// applied.
	x.applied.write = a.plan
	if query.WriteStreamed(a.plan) {
		row = s.streamWrite(x, &writeReply{req: a.req, plan: a.plan})
	}
	if err := s.nextLines(x, a.plan, row); err != nil {
		return err
	}
	x.stepBuf[0] = dbexec.Step{Stmt: x.stmts.Main, Row: row}
	return s.transact(x, x.stepBuf[:1])
}

func (a *writeAction) respond(s *Server, x *exchange) error {
	if query.WriteStreamed(a.plan) {
		if err := x.sink.end(); err != nil || x.sink.started {
			return err
		}
	}
	return respondWrite(x, &writeReply{req: a.req, plan: a.plan}, &x.res)
}

// writeReply is what answering a write takes from its request and plan.
type writeReply struct {
	req  *request.Request
	plan *plan.Write
}

// streamWrite readies x.sink for the representation of a write, as
// streamRows does for a read's rows.
func (s *Server) streamWrite(x *exchange, rep *writeReply) dbexec.RowFunc {
	p := rep.plan
	head := &rowsReply{head: csvHead(&p.Read.Node, p.Read.Media), frame: query.FramingOf(p.Read)}
	return s.streamRows(x, rep.req.Prefer, head, rep)
}

// refuseWrite answers, before the body is read, a write that cannot run:
// to an unknown relation, or one the role may not write (plan.WriteRefused).
// With db-pre-request configured the privilege is left to the database:
// that function runs first and may answer, or change the role, itself.
func (s *Server) refuseWrite(req *request.Request, snap *snapshot.Snapshot, tx dbexec.Tx) error {
	rel, err := plan.WriteTarget(req, snap, s.planOptions())
	if err != nil || s.preRequest != nil {
		return err
	}
	return plan.WriteRefused(req.Method, rel, snap, tx.Role, tx.Authenticated)
}

// writeChecks returns what must hold before a write may commit, or nil:
// for PUT, exactly one row of the body put, the one its URL names (the
// only check PostgREST makes of a PUT); exactly one row written when a
// single object is asked for, whatever return= says; Prefer: max-affected under
// handling=strict; and a limited PATCH or DELETE changing no more than its
// limit (on a view, rows are picked by the order's columns, which may not
// be unique).
func writeChecks(req *request.Request, p *plan.Write, res *dbexec.Result) func() error {
	rows := p.Kind == plan.Update || p.Kind == plan.Delete
	maxAffected := rows && req.Prefer.Handling == "strict" && req.Prefer.MaxAffected != nil
	limited := rows && p.Limit != nil
	single := p.Read.Media.Kind == request.MediaObject
	if p.Kind == plan.Put {
		return func() error {
			if res.PageCount != 1 {
				return apierr.PutMismatch()
			}
			return nil
		}
	}
	if !maxAffected && !limited && !single {
		return nil
	}
	return func() error {
		if single && res.PageCount != 1 {
			return apierr.SingularityError(res.PageCount)
		}
		if maxAffected && res.PageCount > *req.Prefer.MaxAffected {
			return apierr.MaxAffectedExceeded(res.PageCount)
		}
		if limited && res.PageCount > *p.Limit {
			return apierr.LimitExceeded(res.PageCount, *p.Limit)
		}
		return nil
	}
}

// respondWrite answers a write that committed (or rolled back on purpose):
// 201 when rows were created, 200 with a representation or for an upsert
// that only updated, 204 otherwise.
func respondWrite(x *exchange, rep *writeReply, res *dbexec.Result) error {
	status, err := writeHeader(x, rep, res, false)
	if err != nil {
		return err
	}
	p := rep.plan
	if p.Return != "representation" {
		x.w.WriteHeader(status)
		return nil
	}
	writeBody(x.w, status, csvHead(&p.Read.Node, p.Read.Media), res.Body)
	return nil
}

// writeHeader sets the header of a write's answer and returns its
// status. A streamed representation's leaves before its last row has
// arrived: the number of rows written is not known then, so its range
// says none (`0-*/*` for an update, `*/*` otherwise), as a streamed
// read's does.
func writeHeader(x *exchange, rep *writeReply, res *dbexec.Result, streamed bool) (int, error) {
	req, p := rep.req, rep.plan
	h := x.w.Header()
	var total *int64
	if req.Prefer.Count == "exact" && !streamed {
		total = &res.PageCount
	}
	switch {
	case p.Kind == plan.Update && streamed:
		h.Set("Content-Range", streamedRange(0, nil))
	case p.Kind == plan.Update:
		h.Set("Content-Range", contentRange(0, res.PageCount, total))
	case p.Kind != plan.Put:
		t := "*"
		if total != nil {
			t = strconv.FormatInt(*total, 10)
		}
		h.Set("Content-Range", "*/"+t)
	}
	applied := preferenceApplied(req.Prefer, x.applied)
	if applied != "" {
		h.Set("Preference-Applied", applied)
	}
	if warning := legacyNamesWarning(&p.Read.Node); warning != "" {
		setDefault(h, "Warning", warning)
	}
	// Location names the one row created.
	if p.Return == "headers-only" && p.Kind == plan.Insert && res.PageCount == 1 && len(p.Relation.PrimaryKey) > 0 {
		if loc := location(x.r.URL.Path, p.Relation.PrimaryKey, res.Body); loc != "" {
			h.Set("Location", loc)
		}
	}
	inserted := res.Total == nil || *res.Total > 0
	representation := p.Return == "representation"
	status := http.StatusNoContent
	switch {
	case p.Kind == plan.Insert && (inserted || !p.Upsert() || p.IgnoreDuplicates):
		status = http.StatusCreated
	case p.Kind == plan.Insert:
		status = http.StatusOK
	case p.Kind == plan.Put && representation && inserted:
		status = http.StatusCreated
	case representation:
		status = http.StatusOK
	}
	status, err := applyResponseSettings(h, res, status)
	if err != nil {
		return 0, err
	}
	if representation {
		setDefault(h, "Content-Type", p.Read.Media.ContentType())
	}
	return status, nil
}

// location renders /<relation>?<pk>=eq.<value>&... from the JSON array of
// the first written row's key values.
func location(path string, pk []string, values []byte) string {
	var vals []json.RawMessage
	if err := json.Unmarshal(values, &vals); err != nil || len(vals) != len(pk) {
		return ""
	}
	parts := make([]string, len(pk))
	for i, k := range pk {
		// A view's key column may be null, which eq. could never find.
		if string(vals[i]) == "null" {
			parts[i] = url.QueryEscape(k) + "=is.null"
			continue
		}
		parts[i] = url.QueryEscape(k) + "=eq." + url.QueryEscape(plan.JSONText(vals[i]))
	}
	return path + "?" + strings.Join(parts, "&")
}

// writeStatement returns the statement of write p, the plan of x's
// request req: from the kept shape of an insert seen before, its body
// bound in, or built, and its shape kept when it has one. Planning an
// insert stays per request (it is cheap, and what answering needs);
// building its statement need not.
func (s *Server) writeStatement(x *exchange, req *request.Request, p *plan.Write) query.Statement {
	if p.Kind != plan.Insert || p.Payload == nil {
		return query.Write(p)
	}
	key := shapes.Key(x.r, req.Target, p.Payload)
	defer key.Done()
	if sh, ok := s.shapes.Find(x.snap, shapes.Inserts, key.Bytes()).(*shapes.Insert); ok {
		return sh.Stmt.BindPayload(p.Payload.JSON)
	}
	st := query.Write(p)
	if kept, ok := st.WriteShape(); ok {
		s.shapes.Keep(x.snap, shapes.Inserts, key.Bytes(), &shapes.Insert{Stmt: kept})
	}
	return st
}
