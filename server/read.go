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
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
)

// answerRead answers a read of a relation (GET, HEAD), parsed.
func (s *Server) answerRead(x *exchange, req *request.Request) error {
	p, err := plan.BuildRead(req, x.snap, s.planOptions())
	if err != nil {
		return err
	}
	e := s.newReadEntry(req, p)
	if p.Media.Kind == request.MediaPlan {
		if _, err := s.readTx(x, e); err != nil {
			return err
		}
		inner := *p
		inner.Media = request.Media{Kind: p.Media.PlanFor}
		return s.writePlan(x, query.Read(&inner), p.Media)
	}
	e.stmts = bound{main: query.Read(p), count: query.PlanCount(p)}
	x.keepShape(e)
	return s.runRead(x, e, e.stmts)
}

// readTx readies x's transaction for the read e describes: read only,
// the request's preferences and the relation's schema.
func (s *Server) readTx(x *exchange, e *readEntry) (appliedPrefs, error) {
	x.tx.ReadOnly, x.tx.Reads = true, true
	return s.readyTx(x, &e.txShape)
}

// runRead runs the read e describes, its statements bound to the
// request, and answers it.
func (s *Server) runRead(x *exchange, e *readEntry, b bound) error {
	applied, err := s.readTx(x, e)
	if err != nil {
		return err
	}
	var res dbexec.Result
	defer res.Release()
	var explain []byte
	var steps []dbexec.Step
	if b.count != nil {
		steps = append(steps, dbexec.Step{Stmt: *b.count, Row: dbexec.ScanOne(&explain)})
	}
	steps = append(steps, dbexec.Step{Stmt: b.main, Row: dbexec.ScanResult(&res)})
	if err := s.executeFor(x, steps...); err != nil {
		return err
	}
	return s.respondRows(x, e.prefer, &e.reply, &res, explain, applied)
}

// rowsReply is what answering a read of rows takes from its plan. A kept
// read shape holds one, so it holds none of the request's values.
type rowsReply struct {
	// location is the path of the relation read, for Content-Location;
	// "" for a function's rows.
	location string
	offset   int64
	count    string // plan.Read.Count
	maxRows  int64
	media    request.Media
	// head is the CSV header line, newline included, for CSV bodies.
	head []byte
	// warning is the Warning header the answer carries, "" for none
	// (legacyNamesWarning).
	warning string
}

func newRowsReply(p *plan.Read) rowsReply {
	return rowsReply{offset: p.Offset, count: p.Count, maxRows: p.MaxRows, media: p.Media,
		head: csvHead(&p.Node, p.Media), warning: legacyNamesWarning(&p.Node)}
}

// respondRows answers a read of rows, a relation's or a function's: the
// range headers, the status they decide, and the body.
func (s *Server) respondRows(x *exchange, pr request.Preferences, rep *rowsReply, res *dbexec.Result, explain []byte, applied appliedPrefs) error {
	w := x.w
	total := countTotal(rep, res.Total, explain)
	status, err := rangeStatus(rep.offset, res.PageCount, total)
	if err == nil && rep.media.Kind == request.MediaObject && res.PageCount != 1 {
		err = apierr.SingularityError(res.PageCount)
	}
	if err == nil {
		status, err = applyResponseSettings(w.Header(), res, status)
	}
	if err != nil {
		return err
	}
	body, err := handlerBody(rep.media, res.Body)
	if err != nil {
		return err
	}
	h := w.Header()
	setDefault(h, "Content-Type", rep.media.ContentType())
	setDefault(h, "Range-Unit", "items")
	setDefault(h, "Content-Range", contentRange(rep.offset, res.PageCount, total))
	if rep.location != "" {
		setDefault(h, "Content-Location", request.CanonicalURL(rep.location, x.r.URL.RawQuery))
	}
	if v := preferenceApplied(pr, applied); v != "" {
		setDefault(h, "Preference-Applied", v)
	}
	if rep.warning != "" {
		setDefault(h, "Warning", rep.warning)
	}
	if x.r.Method == http.MethodHead {
		w.WriteHeader(status)
		return nil
	}
	writeBody(w, status, rep.head, body)
	return nil
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

// writePlan answers the plan media type: the EXPLAIN output of stmt, the
// statement the request would run for the media type it names in `for`.
func (s *Server) writePlan(x *exchange, stmt query.Statement, media request.Media) error {
	var lines []string
	scan := func(values [][]byte) error {
		lines = append(lines, string(values[0]))
		return nil
	}
	stmt = query.Explain(stmt, media.PlanJSON, media.PlanOptions)
	if err := s.executeFor(x, dbexec.Step{Stmt: stmt, Row: scan}); err != nil {
		return err
	}
	x.w.Header().Set("Content-Type", media.ContentType())
	x.w.WriteHeader(http.StatusOK)
	if x.r.Method != http.MethodHead {
		io.WriteString(x.w, strings.Join(lines, "\n"))
	}
	return nil
}

// explainCall answers the plan media type for a function call: the
// EXPLAIN of the call's statement for the media type named in `for`.
func (s *Server) explainCall(x *exchange, c *plan.Call, media request.Media) error {
	inner := *c
	if c.Read != nil {
		read := *c.Read
		read.Media = request.Media{Kind: media.PlanFor}
		inner.Read = &read
	}
	return s.writePlan(x, query.Call(&inner), media)
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
