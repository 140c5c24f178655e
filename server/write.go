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
	"github.com/svc-dev/svc/snapshot"
)

// answerWrite answers a write to a relation (POST, PATCH, PUT,
// DELETE), parsed.
func (s *Server) answerWrite(x *exchange, req *request.Request) error {
	r, tx := x.r, &x.tx
	var payload *request.Payload
	if r.Method != http.MethodDelete {
		if err := s.refuseWrite(req, x.snap, *tx); err != nil {
			return err
		}
		body, err := s.readBody(x.w, r)
		if err != nil {
			return err
		}
		if payload, err = request.ParsePayload(r.Header.Get("Content-Type"), body, req.Columns); err != nil {
			return err
		}
	}
	p, err := plan.BuildWrite(req, payload, x.snap, s.planOptions())
	if err != nil {
		return err
	}
	if r.Method == http.MethodPatch && payload.Rows > 1 {
		return apierr.InvalidBody("Empty or invalid json", "PATCH takes one JSON object")
	}
	tx.SearchPath = dbexec.SearchPath(p.Relation.Schema, s.cfg.DBExtraSearchPath)
	if len(s.cfg.DBSchemas) > 1 {
		x.w.Header().Set("Content-Profile", p.Relation.Schema)
	}
	applied, err := s.preferences(req.Prefer, tx)
	if err != nil {
		return err
	}
	if req.Media.Kind == request.MediaPlan {
		// The EXPLAIN of the write; only options=analyze runs it, and
		// then the transaction ends as any other (Prefer: tx=rollback).
		inner := *p
		read := *p.Read
		read.Media = request.Media{Kind: req.Media.PlanFor}
		inner.Read = &read
		return s.writePlan(x, query.Write(&inner), req.Media)
	}

	var res dbexec.Result
	defer res.Release()
	tx.Check = writeChecks(req, p, &res)
	if err := s.executeFor(x, dbexec.Step{Stmt: query.Write(p), Row: dbexec.ScanResult(&res)}); err != nil {
		return err
	}
	applied.write = p
	return s.respondWrite(x, req, p, &res, preferenceApplied(req.Prefer, applied))
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
func (s *Server) respondWrite(x *exchange, req *request.Request, p *plan.Write, res *dbexec.Result, applied string) error {
	w := x.w
	h := w.Header()
	var total *int64
	if req.Prefer.Count == "exact" {
		total = &res.PageCount
	}
	if p.Kind == plan.Update {
		h.Set("Content-Range", contentRange(0, res.PageCount, total))
	} else if p.Kind != plan.Put {
		t := "*"
		if total != nil {
			t = strconv.FormatInt(*total, 10)
		}
		h.Set("Content-Range", "*/"+t)
	}
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
		return err
	}
	if !representation {
		w.WriteHeader(status)
		return nil
	}
	setDefault(h, "Content-Type", p.Read.Media.ContentType())
	writeBody(w, status, csvHead(&p.Read.Node, p.Read.Media), res.Body)
	return nil
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
