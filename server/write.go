package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/server/shapes"
	"github.com/svc-dev/svc/snapshot"
)

// writeRoute is a write to a relation (POST, PATCH, PUT, DELETE).
var writeRoute = route[writePlan]{kind: request.KindRelation, plan: (*Server).planWrite, build: (*Server).buildWrite,
	parsed: (*Server).parsedInsert, keepParsed: (*Server).keepParsedInsert}

// writePlan is a write planned: its plan and, for an insert, the shape
// kept for its key (x.insertKey), which the insert's plan copies.
type writePlan struct {
	*plan.Write
	// kept is the insert's kept shape; nil when the write was planned.
	kept *shapes.Insert
}

// An insert's shape is kept in two parts: by its head (what parsing
// reads, request.WriteHead), the request parsed, found before the body is
// read; and by its whole key, once the body's form and keys are known,
// its plan and statement. A later insert of the shape skips parsing,
// planning and building; its body is read and checked as any.

// parsedInsert returns the request kept for the head of x's request when
// it is an insert of target, and nil otherwise; for an insert, it starts
// the insert's key (x.insertKey).
func (s *Server) parsedInsert(x *exchange, target string) *request.Request {
	if x.r.Method != http.MethodPost {
		return nil
	}
	x.insertKey = shapes.HeadKey(x.r, target)
	if sh, ok := s.shapes.Find(x.snap, shapes.Inserts, x.insertKey.Head()).(*shapes.InsertRequest); ok {
		x.keptInsert = sh
		return sh.Req
	}
	return nil
}

// keepParsedInsert keeps, for later inserts of its head, the parse of x's
// request, an insert of target parsed and not refused: parsed again from
// copies of what parsing read (request.WriteShape), so that it keeps no
// memory of the request alive and nothing planning does to a request
// reaches it.
func (s *Server) keepParsedInsert(x *exchange, target string) {
	if x.insertKey == nil {
		return
	}
	req, err := s.parseShape(x, target)
	if err != nil {
		return
	}
	head := x.insertKey.Head()
	s.shapes.Keep(x.snap, shapes.Inserts, head, shapes.NewInsertRequest(req, len(head)))
}

// planWrite plans a write to a relation (POST, PATCH, PUT, DELETE),
// parsed. The body is read here, once the role is known to be allowed
// the write.
func (s *Server) planWrite(x *exchange, req *request.Request) (writePlan, error) {
	r := x.r
	var payload *request.Payload
	if r.Method != http.MethodDelete {
		if err := s.refuseKeptWrite(x, req); err != nil {
			return writePlan{}, err
		}
		var err error
		payload, x.lines, err = request.WriteBody(x.w, r, req, s.bodyLimits)
		if err != nil {
			return writePlan{}, err
		}
	}
	if x.insertKey != nil && payload != nil {
		return s.planInsert(x, req, payload)
	}
	p, err := plan.BuildWrite(req, payload, x.snap, s.planning)
	if err != nil {
		return writePlan{}, err
	}
	if r.Method == http.MethodPatch && payload.Rows > 1 {
		return writePlan{}, apierr.InvalidBody("Empty or invalid json", "PATCH takes one JSON object")
	}
	return writePlan{Write: p}, nil
}

// planInsert plans x's request, req, an insert of payload: a copy of the
// plan its shape keeps, with payload its body, or planned afresh when no
// shape is kept for it. Inserts repeat a few shapes, and a kept plan is
// what planning the same request, headers and body keys makes again. A
// kept request is not planned: planning may write to a request, and a kept
// one is every later insert's of its head; the request is parsed again.
func (s *Server) planInsert(x *exchange, req *request.Request, payload *request.Payload) (writePlan, error) {
	x.insertKey.AddBody(payload)
	if sh, ok := s.shapes.Find(x.snap, shapes.Inserts, x.insertKey.Bytes()).(*shapes.Insert); ok {
		p := *sh.Plan
		p.Payload = payload
		return writePlan{Write: &p, kept: sh}, nil
	}
	if x.keptInsert != nil {
		var err error
		if req, err = request.Parse(s.names, x.r, request.KindRelation, req.Target); err != nil {
			return writePlan{}, err
		}
	}
	p, err := plan.BuildWrite(req, payload, x.snap, s.planning)
	if err != nil {
		return writePlan{}, err
	}
	return writePlan{Write: p}, nil
}

// buildWrite builds the statement of write wp; for the plan media type,
// its EXPLAIN, which only options=analyze runs, and then the transaction
// ends as any other (Prefer: tx=rollback).
func (s *Server) buildWrite(x *exchange, req *request.Request, wp writePlan) (action, shapes.Stmts, error) {
	p := wp.Write
	tx := s.newTxShape(req.Prefer, p.Relation.Schema)
	if req.Media.Kind == request.MediaPlan {
		return explainOf(tx, p, req.Media), shapes.Stmts{}, nil
	}
	return &writeAction{tx: tx, req: req, plan: p}, shapes.Stmts{Main: s.writeStatement(x, req, wp)}, nil
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

func (a *writeAction) run(s *Server, x *exchange, stmts shapes.Stmts) error {
	row := x.resScan
	// A streamed header may leave before respond: it says what was
	// applied.
	x.applied.write = a.plan
	if query.WriteStreamed(a.plan) {
		row = s.streamRows(x, a, query.FramingOf(a.plan.Read), csvHead(&a.plan.Read.Node, a.plan.Read.Media))
	}
	if err := s.nextLines(x, a.plan, row); err != nil {
		return err
	}
	x.stepBuf[0] = dbexec.Step{Stmt: stmts.Main, Row: row}
	return s.transact(x, x.stepBuf[:1])
}

func (a *writeAction) respond(s *Server, x *exchange) error {
	if query.WriteStreamed(a.plan) {
		if err := x.sink.End(); err != nil || x.sink.Started() {
			return err
		}
	}
	return respondWrite(x, a.req, a.plan, &x.res)
}

// StreamHeader sets the header of the write's representation when it
// streams.
func (a *writeAction) StreamHeader(x *exchange, res *dbexec.Result) (int, error) {
	return writeHeader(x, a.req, a.plan, res, true)
}

// refuseWrite answers, before the body is read, a write that cannot run:
// to an unknown relation, or one the role may not write (plan.WriteRefused).
// With db-pre-request configured the privilege is left to the database:
// that function runs first and may answer, or change the role, itself.
func (s *Server) refuseWrite(req *request.Request, snap *snapshot.Snapshot, tx dbexec.Tx) error {
	rel, err := plan.WriteTarget(req, snap, s.planning)
	if err != nil || s.preRequest != nil {
		return err
	}
	return plan.WriteRefused(req.Method, rel, snap, tx.Role, tx.Authenticated)
}

// refuseKeptWrite is refuseWrite for x's request, req, skipped when req
// is the request kept for an insert's head and x's role was found allowed
// on that head before (shapes.InsertRequest.Allowed); a role found allowed
// on a kept head is noted there.
func (s *Server) refuseKeptWrite(x *exchange, req *request.Request) error {
	kept := x.keptInsert
	if kept != nil && kept.Allowed(x.tx.Role) {
		return nil
	}
	if err := s.refuseWrite(req, x.snap, x.tx); err != nil {
		return err
	}
	if kept != nil && s.preRequest == nil {
		// With db-pre-request no privilege was checked.
		kept.Allow(x.tx.Role)
	}
	return nil
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
func respondWrite(x *exchange, req *request.Request, p *plan.Write, res *dbexec.Result) error {
	status, err := writeHeader(x, req, p, res, false)
	if err != nil {
		return err
	}
	if p.Return != "representation" {
		x.w.WriteHeader(status)
		return nil
	}
	writeBody(x, status, csvHead(&p.Read.Node, p.Read.Media), res.Body)
	return nil
}

// writeHeader sets the header of a write's answer and returns its
// status. A streamed representation's leaves before its last row has
// arrived: the number of rows written is not known then, so its range
// says none (`0-*/*` for an update, `*/*` otherwise), as a streamed
// read's does.
func writeHeader(x *exchange, req *request.Request, p *plan.Write, res *dbexec.Result, streamed bool) (int, error) {
	h := x.w.Header()
	var total *int64
	if req.Prefer.Count == "exact" && !streamed {
		total = &res.PageCount
	}
	switch {
	case p.Kind == plan.Update && streamed:
		x.setHeader("Content-Range", streamedRange(0, nil))
	case p.Kind == plan.Update:
		x.setHeader("Content-Range", contentRange(0, res.PageCount, total))
	case p.Kind != plan.Put:
		x.setHeader("Content-Range", contentRange(0, 0, total))
	}
	applied := preferenceApplied(req.Prefer, x.applied)
	if applied != "" {
		x.setHeader("Preference-Applied", applied)
	}
	if warning := legacyNamesWarning(p.Read); warning != "" {
		x.setDefault("Warning", warning)
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
		x.setDefault("Content-Type", p.Read.Media.ContentType())
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

// writeStatement returns the statement of write wp, the plan of x's
// request req: an insert's bound from its kept shape, or built, and then
// its shape kept when it has one, with its plan planned again from a copy
// of what planning read (keptPlan).
func (s *Server) writeStatement(x *exchange, req *request.Request, wp writePlan) query.Statement {
	switch {
	case wp.kept != nil:
		return wp.kept.Stmt.BindPayload(wp.Payload.JSON)
	case x.insertKey == nil || wp.Payload == nil:
		return query.Write(wp.Write)
	}
	st := query.Write(wp.Write)
	if kept, ok := st.WriteShape(); ok {
		if p, ok := s.keptPlan(x, req, wp.Payload); ok {
			key := x.insertKey.Bytes()
			s.shapes.Keep(x.snap, shapes.Inserts, key, shapes.NewInsert(kept, p, len(key)))
		}
	}
	return st
}

// keptPlan plans again the insert of payload that x's request, req, is,
// from copies of what parsing and planning read of it
// (request.WriteShape), without the body's values: the plan a kept shape
// holds, which keeps no memory of the request alive. false when that plan
// fails, which the request's own did not.
func (s *Server) keptPlan(x *exchange, req *request.Request, payload *request.Payload) (*plan.Write, bool) {
	shaped, err := s.parseShape(x, req.Target)
	if err != nil {
		return nil, false
	}
	p, err := plan.BuildWrite(shaped, payload.Shape(), x.snap, s.planning)
	if err != nil {
		return nil, false
	}
	p.Payload = nil
	return p, true
}

// parseShape parses a copy of what parsing reads of x's request, an
// insert of target (request.WriteShape): the request a kept shape is
// made of, sharing no memory with x's.
func (s *Server) parseShape(x *exchange, target string) (*request.Request, error) {
	r, target := request.WriteShape(x.r, target)
	return request.Parse(s.names, r, request.KindRelation, target)
}

// An insert whose body is JSON Lines reads it a batch at a time
// (request.Lines): the first batch before the transaction, as any body,
// and the rest while the transaction runs, each batch one more run of the
// insert's statement (dbexec.Tx.Next). All of them commit, or none: a
// batch that fails to read or to parse rolls the whole back.
//
// A body that ends within its first batch is an ordinary insert. One
// that does not holds its session while its client sends: it must hold
// one of the sessions slow clients may hold (stream.Settings.Streams,
// half of db-pool), waiting for one as long as for a session, so that clients
// sending slowly cannot take the pool. Each batch must arrive within
// server-read-timeout; the body may be server-max-lines-body-bytes in
// all, each line server-max-body-bytes.

// nextLines sets x's transaction up to run write p's statement on every
// batch of its body after the first: row reads each batch's rows, as it
// did the first's. The slot among slow clients' sessions is taken here,
// before a session is.
func (s *Server) nextLines(x *exchange, p *plan.Write, row dbexec.RowFunc) error {
	lines := x.lines
	if lines == nil || !lines.More() {
		return nil
	}
	t := time.NewTimer(s.cfg.DBPoolAcquisitionTimeout)
	defer t.Stop()
	select {
	case s.streaming.Streams <- struct{}{}:
		x.linesSlot = s.streaming.Streams
	case <-t.C:
		return apierr.PoolTimeout()
	case <-x.r.Context().Done():
		return dbexec.ErrClientGone
	}
	rc := http.NewResponseController(x.w)
	// Without it, an HTTP/1 answer whose header leaves (a representation
	// streaming) before the body is read has the server discard what is
	// left of the body up to 256 KiB, and the reads after that see its end.
	if err := rc.EnableFullDuplex(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	res := &x.res
	// before counts the rows of the batches run before the last one: a
	// batch's statement counts its own (and an upsert's inserted rows its
	// own, less every update so far), which fold into the whole's once it
	// has run, the first batch's in the pipeline.
	var before int64
	streamed := query.WriteStreamed(p)
	x.tx.Next = func() (dbexec.Step, bool, error) {
		if !streamed {
			res.PageCount += before // a streamed one counts on
		}
		if res.Total != nil {
			*res.Total += before
		}
		before = res.PageCount
		// Each batch gets server-read-timeout to arrive, the whole body
		// not: it may take longer than one request's body.
		rc.SetReadDeadline(time.Now().Add(s.cfg.ServerReadTimeout))
		batch, err := lines.Batch()
		if err != nil || batch == nil {
			return dbexec.Step{}, false, err
		}
		p.Payload = batch
		if streamed {
			x.sink.NextBatch()
		}
		return dbexec.Step{Stmt: query.Write(p), Row: row}, true, nil
	}
	return nil
}
