package server

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/request"
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
		setDefault(h, "Content-Location", x.canonicalURL(rep.location))
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
