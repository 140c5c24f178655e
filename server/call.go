package server

import (
	"bytes"
	"net/http"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// handleFunction serves /rpc/<function>: POST with the arguments in the
// body, GET and HEAD with them in the query string, in a read-only
// transaction (a function that writes then fails as in PostgREST, 405).
func (s *Server) handleFunction(w http.ResponseWriter, r *http.Request, vars map[string]string) {
	if r.Method == http.MethodOptions {
		s.handleOptions(w, r, request.KindFunction, vars["function"])
		return
	}
	s.serve(w, r, &s.routes.call, vars["function"])
}

// answerCall answers a call of a function, parsed; GET / with
// db-root-spec comes here too.
func (s *Server) answerCall(x *exchange, req *request.Request) error {
	r, tx := x.r, &x.tx
	var args *request.Payload
	var raw []byte
	var err error
	media := "application/json"
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		tx.ReadOnly = true
	case http.MethodPost:
		if s.preRequest == nil {
			// As for writes (refuseWrite): a call the role may not make
			// is refused before its body is read.
			if err := plan.CallRefused(req, x.snap, s.planOptions(), tx.Role, tx.Authenticated); err != nil {
				return err
			}
		}
		if raw, err = s.readBody(x.w, r); err != nil {
			return err
		}
		if ct := r.Header.Get("Content-Type"); ct != "" {
			media = request.ParseMediaType(ct).Type
		}
		body := raw
		if len(bytes.TrimSpace(body)) == 0 && media == "application/json" {
			// No body calls a function without arguments.
			body = []byte("{}")
		}
		switch {
		case media == "application/x-www-form-urlencoded":
			args, err = request.ParseCallForm(body)
		case !rawBodyTypes[media]:
			args, err = request.ParsePayload(r.Header.Get("Content-Type"), body, nil)
		}
		if err != nil {
			return err
		}
	default:
		return apierr.UnsupportedRPCMethod(r.Method)
	}
	c, err := plan.BuildCall(req, args, raw, media, x.snap, s.planOptions())
	if err != nil {
		return err
	}
	tx.Reads = s.callReads(x.snap, tx, c.Function)
	e := s.newCallEntry(req, c)
	if req.Media.Kind == request.MediaPlan {
		if _, err := s.readyTx(x, &e.txShape); err != nil {
			return err
		}
		return s.explainCall(x, c, req.Media)
	}
	e.stmts = bound{main: query.Call(c)}
	x.keepShape(e)
	return s.runCall(x, e, e.stmts.main)
}

// runCall runs the call e describes, its statement bound to the request,
// and answers it.
func (s *Server) runCall(x *exchange, e *callEntry, stmt query.Statement) error {
	applied, err := s.readyTx(x, &e.txShape)
	if err != nil {
		return err
	}
	var res dbexec.Result
	defer res.Release()
	x.tx.Check = callChecks(e, x.tx.ReadOnly, &res)
	// A VOLATILE function may act outside the transaction (a sequence, a
	// message to another server), which a rollback does not undo.
	x.tx.OutsideEffects = !e.reads
	if err := s.executeFor(x, dbexec.Step{Stmt: stmt, Row: dbexec.ScanResult(&res)}); err != nil {
		return err
	}
	if e.rows != nil {
		return s.respondRows(x, e.prefer, e.rows, &res, nil, applied)
	}
	if e.single && res.PageCount != 1 {
		return apierr.SingularityError(res.PageCount)
	}
	return s.respondValue(x, e.prefer, e, &res, applied)
}

// rawBodyTypes are the body types only a function taking the whole body
// as its one argument can accept.
var rawBodyTypes = map[string]bool{"application/octet-stream": true, "text/plain": true, "text/xml": true}

// callChecks returns what must hold before a call's transaction may
// commit: one row when a single object is asked for (a call that may
// write: a read-only one has nothing to roll back, and its answer checks
// the rows after, in one round trip), and Prefer: max-affected under
// handling=strict bounding the rows a set-returning function returns.
func callChecks(e *callEntry, readOnly bool, res *dbexec.Result) func() error {
	pr := e.prefer
	setof := e.returns == snapshot.ReturnsSetOfComposite || e.returns == snapshot.ReturnsSetOfScalar
	maxAffected := setof && pr.Handling == "strict" && pr.MaxAffected != nil
	single := e.single && !readOnly
	if !maxAffected && !single {
		return nil
	}
	return func() error {
		if single && res.PageCount != 1 {
			return apierr.SingularityError(res.PageCount)
		}
		if maxAffected && res.PageCount > *pr.MaxAffected {
			return apierr.MaxAffectedExceeded(res.PageCount)
		}
		return nil
	}
}

// respondValue answers a call whose result is one JSON value: a scalar,
// or nothing (void: 204).
func (s *Server) respondValue(x *exchange, pr request.Preferences, e *callEntry, res *dbexec.Result, applied appliedPrefs) error {
	w := x.w
	status := http.StatusOK
	if e.returns == snapshot.ReturnsVoid {
		status = http.StatusNoContent
	}
	status, err := applyResponseSettings(w.Header(), res, status)
	if err != nil {
		return err
	}
	h := w.Header()
	if v := preferenceApplied(pr, applied); v != "" {
		setDefault(h, "Preference-Applied", v)
	}
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return nil
	}
	var total *int64
	if pr.Count == "exact" {
		total = &res.PageCount
	}
	body, err := handlerBody(e.media, res.Body)
	if err != nil {
		return err
	}
	setDefault(h, "Content-Range", contentRange(0, res.PageCount, total))
	if e.media.Kind == request.MediaHandler {
		setDefault(h, "Content-Type", e.media.ContentType())
	} else {
		setDefault(h, "Content-Type", jsonType)
	}
	if x.r.Method == http.MethodHead {
		w.WriteHeader(status)
		return nil
	}
	writeBody(w, status, nil, body)
	return nil
}
