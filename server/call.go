package server

import (
	"bytes"
	"net/http"

	"github.com/gorilla/mux"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// handleFunction serves /rpc/<function>: POST with the arguments in the
// body, GET and HEAD with them in the query string, in a read-only
// transaction (a function that writes then fails as in PostgREST, 405).
func (s *Server) handleFunction(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodOptions {
		s.handleOptions(w, r, request.KindFunction, mux.Vars(r)["function"])
		return
	}
	s.callFunction(w, r, mux.Vars(r)["function"])
}

// callFunction calls the function named name as the request asks; GET /
// with db-root-spec comes here too.
func (s *Server) callFunction(w http.ResponseWriter, r *http.Request, name string) {
	snap := s.snapshots.Current()
	var t *request.Template
	shaped := false
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		// A call of a shape seen before skips parsing, planning and
		// building (see shapecache.go).
		t = templates.Get().(*request.Template)
		defer templates.Put(t)
		if shaped = t.Read(r, request.KindFunction, name); shaped {
			if e := s.calls.get(snap, t.Key); e != nil {
				if stmt, ok := e.stmt.Bind(t); ok {
					tx, err := s.txFor(r, snap)
					if err != nil {
						writeError(w, s.log, err)
						return
					}
					tx.readOnly, tx.reads = true, e.reads
					s.runCall(w, r, tx, e, stmt)
					return
				}
			}
		}
	}

	req, err := s.parseRequest(r, request.KindFunction, name)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	if s.refusePlan(w, r, req) {
		return
	}
	tx, err := s.txFor(r, snap)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	var args *request.Payload
	var raw []byte
	media := "application/json"
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		tx.readOnly = true
	case http.MethodPost:
		if s.preRequest == nil {
			// As for writes (refuseWrite): a call the role may not make
			// is refused before its body is read.
			if err := plan.CallRefused(req, snap, s.planOptions(), tx.role, tx.authenticated); err != nil {
				writeError(w, s.log, err)
				return
			}
		}
		if raw, err = s.readBody(w, r); err != nil {
			writeError(w, s.log, err)
			return
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
			writeError(w, s.log, err)
			return
		}
	default:
		writeError(w, s.log, apierr.UnsupportedRPCMethod(r.Method))
		return
	}
	c, err := plan.BuildCall(req, args, raw, media, snap, s.planOptions())
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	tx.reads = s.callReads(snap, &tx, c.Function)
	e := s.newCallEntry(req, c)
	if req.Media.Kind == request.MediaPlan {
		if _, err := s.readyTx(w, &tx, &e.txShape); err != nil {
			writeError(w, s.log, err)
			return
		}
		s.explainCall(w, r, tx, c, req.Media)
		return
	}
	e.stmt = query.Call(c)
	if shaped {
		if kept := e.shape(); kept != nil {
			s.calls.put(snap, t.Key, kept)
		}
	}
	s.runCall(w, r, tx, e, e.stmt)
}

// runCall runs the call e describes, its statement bound to the request,
// and answers it.
func (s *Server) runCall(w http.ResponseWriter, r *http.Request, tx txSpec, e *callEntry, stmt query.Statement) {
	applied, err := s.readyTx(w, &tx, &e.txShape)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	var res result
	defer res.release()
	tx.check = callChecks(e, tx.readOnly, &res)
	if err := s.executeFor(w, r, tx, step{stmt, scanResult(&res)}); err != nil {
		writeError(w, s.log, err)
		return
	}
	if e.rows != nil {
		s.respondRows(w, r, e.prefer, e.rows, &res, nil, applied)
		return
	}
	if e.single && res.pageCount != 1 {
		writeError(w, s.log, apierr.SingularityError(res.pageCount))
		return
	}
	s.respondValue(w, r, e.prefer, e, &res, applied)
}

// rawBodyTypes are the body types only a function taking the whole body
// as its one argument can accept.
var rawBodyTypes = map[string]bool{"application/octet-stream": true, "text/plain": true, "text/xml": true}

// callChecks returns what must hold before a call's transaction may
// commit: one row when a single object is asked for (a call that may
// write: a read-only one has nothing to roll back, and its answer checks
// the rows after, in one round trip), and Prefer: max-affected under
// handling=strict bounding the rows a set-returning function returns.
func callChecks(e *callEntry, readOnly bool, res *result) func() error {
	pr := e.prefer
	setof := e.returns == snapshot.ReturnsSetOfComposite || e.returns == snapshot.ReturnsSetOfScalar
	maxAffected := setof && pr.Handling == "strict" && pr.MaxAffected != nil
	single := e.single && !readOnly
	if !maxAffected && !single {
		return nil
	}
	return func() error {
		if single && res.pageCount != 1 {
			return apierr.SingularityError(res.pageCount)
		}
		if maxAffected && res.pageCount > *pr.MaxAffected {
			return apierr.MaxAffectedExceeded(res.pageCount)
		}
		return nil
	}
}

// respondValue answers a call whose result is one JSON value: a scalar, a
// set of scalars, or nothing (void: 204).
func (s *Server) respondValue(w http.ResponseWriter, r *http.Request, pr request.Preferences, e *callEntry, res *result, applied honoured) {
	status := http.StatusOK
	if e.returns == snapshot.ReturnsVoid {
		status = http.StatusNoContent
	}
	status, err := applyResponseSettings(w.Header(), res, status)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	h := w.Header()
	if v := preferenceApplied(pr, applied); v != "" {
		h.Set("Preference-Applied", v)
	}
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return
	}
	var total *int64
	if pr.Count == "exact" {
		total = &res.pageCount
	}
	body, err := handlerBody(e.media, res.body)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	h.Set("Content-Range", contentRange(0, res.pageCount, total))
	if e.media.Kind == request.MediaHandler {
		setContentType(h, e.media)
	} else {
		h.Set("Content-Type", jsonType)
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(status)
		return
	}
	writeBody(w, status, nil, body)
}
