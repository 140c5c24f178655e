package server

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
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
	"github.com/svc-dev/svc/server/shapes"
)

// Answering rows, a relation's (read.go) or a function's (call.go): the
// range headers, the status they decide, the count, the CSV header line.

// rowsReply is what answering a read of rows takes from its plan. A kept
// read shape holds one, so it holds none of the request's values.
type rowsReply struct {
	// location is the path of the relation read, for Content-Location;
	// "" for a function's rows.
	location string
	offset   int64
	// limit bounds the page; noLimit when nothing does.
	limit   int64
	count   string // plan.Read.Count
	maxRows int64
	media   request.Media
	// head is the CSV header line, newline included, for CSV bodies.
	head []byte
	// warning is the Warning header the answer carries, "" for none
	// (legacyNamesWarning).
	warning string
	// streamed is set when the statement returns the body row by row
	// (query.Streamed), joined as frame says (stream.go).
	streamed bool
	frame    query.Framing
}

// bytes counts the texts r holds.
func (r *rowsReply) bytes() int { return len(r.location) + len(r.head) + shapes.Texts(&r.media) }

// noLimit is rowsReply.limit for a page nothing bounds.
const noLimit = -1

func newRowsReply(p *plan.Read) rowsReply {
	rep := rowsReply{offset: p.Offset, limit: noLimit, count: p.Count, maxRows: p.MaxRows, media: p.Media,
		head: csvHead(&p.Node, p.Media), warning: legacyNamesWarning(&p.Node), streamed: query.Streamed(p)}
	if p.Limit != nil {
		rep.limit = *p.Limit
	}
	if rep.streamed {
		rep.frame = query.FramingOf(p)
	}
	return rep
}

// respondRows answers a read of rows, a relation's or a function's: the
// range headers, the status they decide, and the body.
func (s *Server) respondRows(x *exchange, pr request.Preferences, rep *rowsReply, res *dbexec.Result, explain []byte, applied appliedPrefs) error {
	status, err := rowsHeader(x, pr, rep, res, explain, applied, false)
	if err != nil {
		return err
	}
	body, err := handlerBody(rep.media, res.Body)
	if err != nil {
		return err
	}
	if x.r.Method == http.MethodHead {
		x.w.WriteHeader(status)
		return nil
	}
	writeBody(x.w, status, rep.head, body)
	return nil
}

// rowsHeader sets the header of an answer of rows and returns its
// status. A streamed answer's leaves before its last row has arrived:
// its status and range come from the count alone (streamedStatus), and
// the settings from the rows so far.
func rowsHeader(x *exchange, pr request.Preferences, rep *rowsReply, res *dbexec.Result, explain []byte, applied appliedPrefs, streamed bool) (int, error) {
	total := countTotal(rep, res.Total, explain)
	var status int
	var err error
	if streamed {
		status = streamedStatus(rep, total)
	} else {
		status, err = rangeStatus(rep.offset, res.PageCount, total)
	}
	if err == nil && rep.media.Kind == request.MediaObject && res.PageCount != 1 {
		err = apierr.SingularityError(res.PageCount)
	}
	h := x.w.Header()
	if err == nil {
		status, err = applyResponseSettings(h, res, status)
	}
	if err != nil {
		return 0, err
	}
	setDefault(h, "Content-Type", rep.media.ContentType())
	setDefault(h, "Range-Unit", "items")
	if streamed {
		setDefault(h, "Content-Range", streamedRange(rep.offset, total))
	} else {
		setDefault(h, "Content-Range", contentRange(rep.offset, res.PageCount, total))
	}
	if rep.location != "" {
		setDefault(h, "Content-Location", x.canonicalURL(rep.location))
	}
	if v := preferenceApplied(pr, applied); v != "" {
		setDefault(h, "Preference-Applied", v)
	}
	if rep.warning != "" {
		setDefault(h, "Warning", rep.warning)
	}
	return status, nil
}

// streamedStatus is the status of a streamed answer, decided before its
// last row: the page, not empty, is partial when it starts past the
// first row counted or its limit is below the count, which counted the
// same rows in the same snapshot.
func streamedStatus(rep *rowsReply, total *int64) int {
	if total != nil && (rep.offset > 0 || rep.limit != noLimit && rep.limit < *total) {
		return http.StatusPartialContent
	}
	return http.StatusOK
}

// streamedRange renders Content-Range for a streamed answer, whose last
// row is not known when the header leaves: `first-*/total`.
func streamedRange(offset int64, total *int64) string {
	t := "*"
	if total != nil {
		t = strconv.FormatInt(*total, 10)
	}
	return strconv.FormatInt(offset, 10) + "-*/" + t
}

// streamRows readies x.sink for the rows of a streamed read answered by
// rep, and returns the step's row function. The answer may stream unless
// a check must see every row before the commit.
// A write's representation (write set) is answered as write says.
func (s *Server) streamRows(x *exchange, pr request.Preferences, rep *rowsReply, write *writeReply) dbexec.RowFunc {
	k := &x.sink
	*k = rowSink{x: x, res: &x.res, frame: rep.frame, limit: s.cfg.ServerResponseBufferBytes, budget: s.bodies,
		sendTimeout: s.cfg.ServerStreamSendTimeout, streams: s.streams,
		mayStream: x.tx.Check == nil, rep: rep, prefer: pr, write: write}
	// The rows accumulate: a run on another session (a stale one's) must
	// start from none.
	x.tx.Rewind = k.rewind
	return k.row
}

// respondStreamed completes the answer of a streamed read: the rest of a
// body that has streamed, or the whole one.
func (s *Server) respondStreamed(x *exchange, pr request.Preferences, rep *rowsReply) error {
	if err := x.sink.end(); err != nil {
		return err
	}
	if x.sink.started {
		return nil
	}
	return s.respondRows(x, pr, rep, &x.res, x.explain, x.applied)
}

// csvHead is the header line CSV bodies of node n start with, newline
// included; nil for other media.
func csvHead(n *plan.Node, media request.Media) []byte {
	if media.Kind != request.MediaCSV {
		return nil
	}
	return append(csvHeader(n.OutputNames()), '\n')
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

// canonicalURL is request.CanonicalURL of path and x's query string, from
// its template when it has one (shapecache.go), which holds the query
// string parsed.
func (x *exchange) canonicalURL(path string) string {
	if x.template != nil {
		return x.template.CanonicalURL(path, x.r.URL.RawQuery)
	}
	return request.CanonicalURL(path, x.r.URL.RawQuery)
}
