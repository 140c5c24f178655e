package server

import (
	"bytes"
	"io"
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
	snap := s.snapshots.Current()
	req, err := request.Parse(r, request.KindFunction, mux.Vars(r)["function"])
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	tx, err := s.txFor(r, req)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	var args *request.Payload
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		tx.readOnly = true
	case http.MethodPost:
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
		if err != nil {
			writeError(w, s.log, apierr.InvalidBody("Request body too large or unreadable", err.Error()))
			return
		}
		if len(bytes.TrimSpace(body)) == 0 {
			// No body calls a function without arguments.
			body = []byte("{}")
		}
		if args, err = request.ParsePayload(r.Header.Get("Content-Type"), body, nil); err != nil {
			writeError(w, s.log, err)
			return
		}
	default:
		writeError(w, s.log, apierr.UnsupportedVerb(r.Method))
		return
	}
	c, err := plan.BuildCall(req, args, snap, s.planOptions())
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	applied, err := s.preferences(req, &tx)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	tx.searchPath = searchPath(c.Function.Schema, s.cfg.DBExtraSearchPath)
	if len(s.cfg.DBSchemas) > 1 {
		w.Header().Set("Content-Profile", c.Function.Schema)
	}
	var res result
	tx.check = callChecks(req, c, &res)
	if err := s.execute(r.Context(), tx, step{query.Call(c), scanResult(&res)}); err != nil {
		writeError(w, s.log, err)
		return
	}
	if c.ReturnsRows() {
		s.respondRows(w, r, req, c.Read, &res, nil, applied)
		return
	}
	s.respondValue(w, r, req, c, &res, applied)
}

// callChecks returns what must hold before a call's transaction may
// commit: Prefer: max-affected under handling=strict bounds the rows a
// set-returning function returns.
func callChecks(req *request.Request, c *plan.Call, res *result) func() error {
	pr := req.Prefer
	setof := c.Function.Returns == snapshot.ReturnsSetOfComposite || c.Function.Returns == snapshot.ReturnsSetOfScalar
	if !setof || pr.Handling != "strict" || pr.MaxAffected == nil {
		return nil
	}
	return func() error {
		if res.pageCount > *pr.MaxAffected {
			return apierr.MaxAffectedExceeded(res.pageCount)
		}
		return nil
	}
}

// respondValue answers a call whose result is one JSON value: a scalar, a
// set of scalars, or nothing (void: 204).
func (s *Server) respondValue(w http.ResponseWriter, r *http.Request, req *request.Request, c *plan.Call, res *result, applied honoured) {
	status := http.StatusOK
	if c.Function.Returns == snapshot.ReturnsVoid {
		status = http.StatusNoContent
	}
	status, err := applyResponseSettings(w.Header(), res, status)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	h := w.Header()
	if v := preferenceApplied(req.Prefer, applied); v != "" {
		h.Set("Preference-Applied", v)
	}
	if status == http.StatusNoContent || r.Method == http.MethodHead {
		w.WriteHeader(status)
		return
	}
	h.Set("Content-Type", jsonType)
	writeBody(w, status, nil, request.Media{}, res.body)
}
