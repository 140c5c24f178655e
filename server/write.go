package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// handleWrite serves POST, PATCH, PUT and DELETE on a relation.
func (s *Server) handleWrite(w http.ResponseWriter, r *http.Request, target string) {
	snap := s.snapshots.Current()
	req, err := s.parseRequest(w, r, request.KindRelation, target)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	if s.refusePlan(w, r, req) {
		return
	}
	tx, err := s.txFor(w, r, snap)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	var payload *request.Payload
	if r.Method != http.MethodDelete {
		if err := s.refuseWrite(req, snap, tx); err != nil {
			writeError(w, s.log, err)
			return
		}
		body, err := s.readBody(w, r)
		if err != nil {
			writeError(w, s.log, err)
			return
		}
		if payload, err = request.ParsePayload(r.Header.Get("Content-Type"), body, req.Columns); err != nil {
			writeError(w, s.log, err)
			return
		}
	}
	p, err := plan.BuildWrite(req, payload, snap, s.planOptions())
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	if r.Method == http.MethodPatch && payload.Rows > 1 {
		writeError(w, s.log, apierr.InvalidBody("Empty or invalid json", "PATCH takes one JSON object"))
		return
	}
	tx.searchPath = searchPath(p.Relation.Schema, s.cfg.DBExtraSearchPath)
	if len(s.cfg.DBSchemas) > 1 {
		w.Header().Set("Content-Profile", p.Relation.Schema)
	}
	applied, err := s.preferences(req.Prefer, &tx)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	if req.Media.Kind == request.MediaPlan {
		// The EXPLAIN of the write; only options=analyze runs it, and
		// then the transaction ends as any other (Prefer: tx=rollback).
		inner := *p
		read := *p.Read
		read.Media = request.Media{Kind: req.Media.PlanFor}
		inner.Read = &read
		s.writePlan(w, r, tx, query.Write(&inner), req.Media)
		return
	}

	var res result
	defer res.release()
	tx.check = writeChecks(req, p, &res)
	if err := s.executeFor(w, r, tx, step{query.Write(p), scanResult(&res)}); err != nil {
		writeError(w, s.log, err)
		return
	}
	applied.write = p
	s.respondWrite(w, r, req, p, &res, preferenceApplied(req.Prefer, applied))
}

// refuseWrite answers, before the body is read, a write that cannot run:
// to an unknown relation, or one the role may not write (plan.WriteRefused).
// With db-pre-request configured the privilege is left to the database:
// that function runs first and may answer, or change the role, itself.
func (s *Server) refuseWrite(req *request.Request, snap *snapshot.Snapshot, tx txSpec) error {
	rel, err := plan.WriteTarget(req, snap, s.planOptions())
	if err != nil || s.preRequest != nil {
		return err
	}
	return plan.WriteRefused(req.Method, rel, snap, tx.role, tx.authenticated)
}

// writeChecks returns what must hold before a write may commit, or nil:
// exactly one row written when a single object is asked for, whatever
// return= says (PostgREST's order: this first); Prefer: max-affected under
// handling=strict; and a limited PATCH or DELETE changing no more than its
// limit (on a view, rows are picked by the order's columns, which may not
// be unique).
func writeChecks(req *request.Request, p *plan.Write, res *result) func() error {
	rows := p.Kind == plan.Update || p.Kind == plan.Delete
	maxAffected := rows && req.Prefer.Handling == "strict" && req.Prefer.MaxAffected != nil
	limited := rows && p.Limit != nil
	single := p.Read.Media.Kind == request.MediaObject
	if !maxAffected && !limited && !single {
		return nil
	}
	return func() error {
		if single && res.pageCount != 1 {
			return apierr.SingularityError(res.pageCount)
		}
		if maxAffected && res.pageCount > *req.Prefer.MaxAffected {
			return apierr.MaxAffectedExceeded(res.pageCount)
		}
		if limited && res.pageCount > *p.Limit {
			return apierr.LimitExceeded(res.pageCount, *p.Limit)
		}
		return nil
	}
}

// respondWrite answers a write that committed (or rolled back on purpose):
// 201 when rows were created, 200 with a representation or for an upsert
// that only updated, 204 otherwise.
func (s *Server) respondWrite(w http.ResponseWriter, r *http.Request, req *request.Request, p *plan.Write, res *result, applied string) {
	h := w.Header()
	var total *int64
	if req.Prefer.Count == "exact" {
		total = &res.pageCount
	}
	if p.Kind == plan.Update {
		h.Set("Content-Range", contentRange(0, res.pageCount, total))
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
	// Location names the one row created.
	if p.Return == "headers-only" && p.Kind == plan.Insert && res.pageCount == 1 && len(p.Relation.PrimaryKey) > 0 {
		if loc := location(r.URL.Path, p.Relation.PrimaryKey, res.body); loc != "" {
			h.Set("Location", loc)
		}
	}
	inserted := res.total == nil || *res.total > 0
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
		writeError(w, s.log, err)
		return
	}
	if !representation {
		w.WriteHeader(status)
		return
	}
	setDefault(h, "Content-Type", p.Read.Media.ContentType())
	writeBody(w, status, csvHead(&p.Read.Node, p.Read.Media), res.body)
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
