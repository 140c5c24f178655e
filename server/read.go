package server

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
)

// handleRead serves GET and HEAD on a relation.
func (s *Server) handleRead(w http.ResponseWriter, r *http.Request, target string) {
	snap := s.snapshots.Current()
	req, err := s.parseRequest(r, request.KindRelation, target)
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
	p, err := plan.BuildRead(req, snap, s.planOptions())
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	tx.readOnly = true
	applied, err := s.preferences(req, &tx)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	tx.searchPath = searchPath(p.Relation.Schema, s.cfg.DBExtraSearchPath)
	if len(s.cfg.DBSchemas) > 1 {
		w.Header().Set("Content-Profile", p.Relation.Schema)
	}
	if p.Media.Kind == request.MediaPlan {
		inner := *p
		inner.Media = request.Media{Kind: p.Media.PlanFor}
		s.writePlan(w, r, tx, query.Read(&inner), p.Media)
		return
	}

	var res result
	defer res.release()
	var explain []byte
	var steps []step
	if pc := query.PlanCount(p); pc != nil {
		steps = append(steps, step{*pc, scanOne(&explain)})
	}
	steps = append(steps, step{query.Read(p), scanResult(&res)})
	if err := s.executeFor(w, r, tx, steps...); err != nil {
		writeError(w, s.log, err)
		return
	}
	s.respondRows(w, r, req, p, &res, explain, applied)
}

// respondRows answers a read of rows, a relation's or a function's: the
// range headers, the status they decide, and the body.
func (s *Server) respondRows(w http.ResponseWriter, r *http.Request, req *request.Request, p *plan.Read, res *result, explain []byte, applied honoured) {
	total := countTotal(p, res.total, explain)
	status, err := rangeStatus(p.Offset, res.pageCount, total)
	if err == nil && p.Media.Kind == request.MediaObject && res.pageCount != 1 {
		err = apierr.SingularityError(res.pageCount)
	}
	if err == nil {
		status, err = applyResponseSettings(w.Header(), res, status)
	}
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", p.Media.ContentType())
	h.Set("Range-Unit", "items")
	h.Set("Content-Range", contentRange(p.Offset, res.pageCount, total))
	if v := preferenceApplied(req.Prefer, applied); v != "" {
		h.Set("Preference-Applied", v)
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(status)
		return
	}
	writeBody(w, status, &p.Node, p.Media, res.body)
}

// writeBody sends a body PostgreSQL built, adding the header line to CSV.
func writeBody(w http.ResponseWriter, status int, n *plan.Node, media request.Media, body []byte) {
	var head []byte
	if media.Kind == request.MediaCSV {
		head = csvHeader(n.OutputNames())
		if len(body) > 0 {
			head = append(head, '\n')
		}
	}
	// With the length known, the server sends the body as is rather than
	// chunked; it gathers the two writes into one.
	w.Header().Set("Content-Length", strconv.Itoa(len(head)+len(body)))
	w.WriteHeader(status)
	w.Write(head)
	w.Write(body)
}

// refusePlan answers the plan media type with 415 while db-plan-enabled
// is off, and reports whether it did. Plans reveal table sizes and
// indexes, so they are opt-in; while off, the plan media type is simply
// not on offer.
func (s *Server) refusePlan(w http.ResponseWriter, r *http.Request, req *request.Request) bool {
	if req.Media.Kind != request.MediaPlan || s.cfg.DBPlanEnabled {
		return false
	}
	writeError(w, s.log, apierr.UnsupportedMediaType(strings.Join(r.Header.Values("Accept"), ", ")))
	return true
}

// writePlan answers the plan media type: the EXPLAIN output of stmt, the
// statement the request would run for the media type it names in `for`.
func (s *Server) writePlan(w http.ResponseWriter, r *http.Request, tx txSpec, stmt query.Statement, media request.Media) {
	var lines []string
	scan := func(values [][]byte) error {
		lines = append(lines, string(values[0]))
		return nil
	}
	stmt = query.Explain(stmt, media.PlanJSON, media.PlanOptions)
	if err := s.executeFor(w, r, tx, step{stmt, scan}); err != nil {
		writeError(w, s.log, err)
		return
	}
	w.Header().Set("Content-Type", media.ContentType())
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		io.WriteString(w, strings.Join(lines, "\n"))
	}
}

// explainCall answers the plan media type for a function call: the
// EXPLAIN of the call's statement for the media type named in `for`.
func (s *Server) explainCall(w http.ResponseWriter, r *http.Request, tx txSpec, c *plan.Call, media request.Media) {
	inner := *c
	if c.Read != nil {
		read := *c.Read
		read.Media = request.Media{Kind: media.PlanFor}
		inner.Read = &read
	}
	s.writePlan(w, r, tx, query.Call(&inner), media)
}

// countTotal decides the total for Content-Range: the exact count, or the
// planner's estimate for planned counts and for estimated counts past
// db-max-rows.
func countTotal(p *plan.Read, exact *int64, explain []byte) *int64 {
	switch p.Count {
	case "planned":
		return planRows(explain)
	case "estimated":
		if exact != nil && p.MaxRows > 0 && *exact > p.MaxRows {
			if est := planRows(explain); est != nil {
				return est
			}
		}
	}
	return exact
}

// planRows reads the top node's row estimate from EXPLAIN (FORMAT JSON).
func planRows(explain []byte) *int64 {
	var out []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal(explain, &out); err != nil || len(out) == 0 {
		return nil
	}
	n := int64(out[0].Plan.Rows)
	return &n
}

// rangeStatus follows PostgREST: without a total the answer is 200; with
// one, an offset past it is 416, a page smaller than it 206.
func rangeStatus(offset, n int64, total *int64) (int, error) {
	if total == nil {
		return http.StatusOK, nil
	}
	if offset > *total {
		return 0, apierr.OffsetBeyondTotal(offset, *total)
	}
	if n < *total {
		return http.StatusPartialContent, nil
	}
	return http.StatusOK, nil
}

// csvHeader renders the column names as a CSV line.
func csvHeader(names []string) []byte {
	if !slices.ContainsFunc(names, csvNeedsQuotes) {
		// Plain names, the usual case, need no csv.Writer.
		return []byte(strings.Join(names, ","))
	}
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	cw.Write(names)
	cw.Flush()
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// csvNeedsQuotes reports whether csv.Writer would quote name: for a
// comma, quote or line break in it, a leading space, or PostgreSQL's
// end-of-data marker \. (the rules of its fieldNeedsQuotes).
func csvNeedsQuotes(name string) bool {
	first, _ := utf8.DecodeRuneInString(name)
	return name == `\.` || strings.ContainsAny(name, ",\"\r\n") || (name != "" && unicode.IsSpace(first))
}
