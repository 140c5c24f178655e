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

// handleRead serves GET and HEAD on a relation. A read of a shape seen
// before skips parsing, planning and building (see shapecache.go).
func (s *Server) handleRead(w http.ResponseWriter, r *http.Request, target string) {
	snap := s.snapshots.Current()
	t := templates.Get().(*request.Template)
	defer templates.Put(t)
	shaped := t.Read(r, request.KindRelation, target)
	if shaped {
		if e := s.reads.get(snap, t.Key); e != nil {
			if read, count, ok := e.bind(t); ok {
				tx, err := s.txFor(r, snap)
				if err != nil {
					writeError(w, s.log, err)
					return
				}
				s.runRead(w, r, tx, e, read, count)
				return
			}
		}
	}

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
	e := s.newReadEntry(req, p)
	if p.Media.Kind == request.MediaPlan {
		if _, err := s.readTx(w, &tx, e); err != nil {
			writeError(w, s.log, err)
			return
		}
		inner := *p
		inner.Media = request.Media{Kind: p.Media.PlanFor}
		s.writePlan(w, r, tx, query.Read(&inner), p.Media)
		return
	}
	e.read, e.count = query.Read(p), query.PlanCount(p)
	if shaped {
		if kept := e.shape(); kept != nil {
			s.reads.put(snap, t.Key, kept)
		}
	}
	s.runRead(w, r, tx, e, e.read, e.count)
}

// readTx readies tx for the read e describes: read only, the request's
// preferences and the relation's schema.
func (s *Server) readTx(w http.ResponseWriter, tx *txSpec, e *readEntry) (honoured, error) {
	tx.readOnly, tx.reads = true, true
	return s.readyTx(w, tx, &e.txShape)
}

// runRead runs the read e describes, its statements bound to the request,
// and answers it.
func (s *Server) runRead(w http.ResponseWriter, r *http.Request, tx txSpec, e *readEntry, read query.Statement, count *query.Statement) {
	applied, err := s.readTx(w, &tx, e)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	var res result
	defer res.release()
	var explain []byte
	var steps []step
	if count != nil {
		steps = append(steps, step{*count, scanOne(&explain)})
	}
	steps = append(steps, step{read, scanResult(&res)})
	if err := s.executeFor(w, r, tx, steps...); err != nil {
		writeError(w, s.log, err)
		return
	}
	s.respondRows(w, r, e.prefer, &e.reply, &res, explain, applied)
}

// rowsReply is what answering a read of rows takes from its plan. A kept
// read shape holds one, so it holds none of the request's values.
type rowsReply struct {
	offset  int64
	count   string // plan.Read.Count
	maxRows int64
	media   request.Media
	// head is the CSV header line, newline included, for CSV bodies.
	head []byte
}

func newRowsReply(p *plan.Read) rowsReply {
	return rowsReply{offset: p.Offset, count: p.Count, maxRows: p.MaxRows, media: p.Media,
		head: csvHead(&p.Node, p.Media)}
}

// respondRows answers a read of rows, a relation's or a function's: the
// range headers, the status they decide, and the body.
func (s *Server) respondRows(w http.ResponseWriter, r *http.Request, pr request.Preferences, rep *rowsReply, res *result, explain []byte, applied honoured) {
	total := countTotal(rep, res.total, explain)
	status, err := rangeStatus(rep.offset, res.pageCount, total)
	if err == nil && rep.media.Kind == request.MediaObject && res.pageCount != 1 {
		err = apierr.SingularityError(res.pageCount)
	}
	if err == nil {
		status, err = applyResponseSettings(w.Header(), res, status)
	}
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	body, err := handlerBody(rep.media, res.body)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	h := w.Header()
	setContentType(h, rep.media)
	h.Set("Range-Unit", "items")
	h.Set("Content-Range", contentRange(rep.offset, res.pageCount, total))
	if v := preferenceApplied(pr, applied); v != "" {
		h.Set("Preference-Applied", v)
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(status)
		return
	}
	writeBody(w, status, rep.head, body)
}

// csvHead is the header line CSV bodies of node n start with, newline
// included; nil for other media.
func csvHead(n *plan.Node, media request.Media) []byte {
	if media.Kind != request.MediaCSV {
		return nil
	}
	return append(csvHeader(n.OutputNames()), '\n')
}

// writeBody sends a body PostgreSQL built, after the CSV header line head
// (see csvHead) when there is one. head may be shared, so it is never
// written to: an empty body takes it without its newline.
func writeBody(w http.ResponseWriter, status int, head, body []byte) {
	if len(head) > 0 && len(body) == 0 {
		head = head[:len(head)-1]
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

// countTotal decides the total for Content-Range, as PostgREST does: the
// exact count; the planner's estimate for planned counts; and for
// estimated counts, past db-max-rows (or always when it is unset) the
// larger of the count (stopped at db-max-rows + 1) and the estimate.
func countTotal(rep *rowsReply, exact *int64, explain []byte) *int64 {
	switch rep.count {
	case "planned":
		return planRows(explain)
	case "estimated":
		if exact != nil && (rep.maxRows <= 0 || *exact > rep.maxRows) {
			if est := planRows(explain); est != nil && *est > *exact {
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
