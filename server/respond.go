package server

import (
	"bytes"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/server/shapes"
	"github.com/svc-dev/svc/server/stream"
	"github.com/svc-dev/svc/snapshot"
)

const jsonType = "application/json; charset=utf-8"

// writeError sends err as the SVC error body with its status, its code
// written under the server's naming, as verbose as client-error-verbosity
// says.
func (s *Server) writeError(w http.ResponseWriter, err error) {
	if errors.Is(err, dbexec.ErrClientGone) {
		s.log.Debug("request abandoned by the client")
		return
	}
	apierr.From(err).Write(w, s.names, s.verbosity, s.log)
}

// clientErrors is the verbosity of cfg's client-error-verbosity.
func clientErrors(cfg *config.Config) apierr.Verbosity {
	if cfg.ClientErrorVerbosity == config.ClientErrorsMinimal {
		return apierr.Minimal
	}
	return apierr.Verbose
}

// firstRanges holds contentRange of the first n rows, uncounted, for n up
// to its length: the answer of most reads, made once rather than per
// request.
var firstRanges = func() (r [256]string) {
	for i := range r {
		r[i] = "0-" + strconv.Itoa(i) + "/*"
	}
	return r
}()

// contentRange renders `first-last/total` for a page of n rows starting at
// offset; total is "*" when not counted, and the range is "*" for an empty
// page or a zero total.
func contentRange(offset, n int64, total *int64) string {
	if offset == 0 && total == nil && 0 < n && n <= int64(len(firstRanges)) {
		return firstRanges[n-1]
	}
	if total == nil && n == 0 {
		return "*/*" // a write's, without a count: not made per request
	}
	t := "*"
	if total != nil {
		t = strconv.FormatInt(*total, 10)
	}
	if n == 0 || (total != nil && *total == 0) {
		return "*/" + t
	}
	return strconv.FormatInt(offset, 10) + "-" + strconv.FormatInt(offset+n-1, 10) + "/" + t
}

// applyResponseSettings applies what functions in the statement set with
// set_config: response.headers, a JSON array of one-key objects, and
// response.status, which replaces status. Values that are neither, and
// headers HTTP cannot carry as set, are the database developer's error:
// 500 SVC111 and SVC112. The headers SVC sets
// after it go through setDefault, so that a function's value wins, as in
// PostgREST.
func applyResponseSettings(h http.Header, res *dbexec.Result, status int) (int, error) {
	if res.Headers != nil {
		var list []map[string]string
		if err := json.Unmarshal([]byte(*res.Headers), &list); err != nil {
			return 0, apierr.InvalidResponseHeaders()
		}
		for _, m := range list {
			if len(m) != 1 {
				return 0, apierr.InvalidResponseHeaders()
			}
			for k, v := range m {
				if reason := apierr.HeaderFieldError(k, v); reason != "" {
					return 0, apierr.InvalidResponseHeader(k, reason)
				}
			}
		}
		// A name set here replaces SVC's own value of that header; set
		// twice (two Set-Cookie) it is sent twice.
		for _, m := range list {
			for k := range m {
				h.Del(k)
			}
		}
		for _, m := range list {
			for k, v := range m {
				h.Add(k, v)
			}
		}
	}
	if res.Status != nil {
		n, err := strconv.Atoi(strings.TrimSpace(*res.Status))
		if err != nil || n < 100 || n > 599 {
			return 0, apierr.InvalidResponseStatus()
		}
		status = n
	}
	return status, nil
}

// setDefault sets a header SVC decides unless a function already set it
// through response.headers. key is in canonical form.
func (x *exchange) setDefault(key, value string) {
	if _, ok := x.w.Header()[key]; !ok {
		x.setHeader(key, value)
	}
}

// setHeader sets the header key (in canonical form) to value alone. The
// one-value slices of a response's headers are carved from one array:
// each would otherwise be an allocation of its own, and an answer sets
// half a dozen. Each carved slice is full (its length is its capacity),
// so a later Add copies it rather than writing over its neighbour.
func (x *exchange) setHeader(key, value string) {
	if len(x.headerRoom) == cap(x.headerRoom) {
		x.headerRoom = make([]string, 0, 8)
	}
	x.headerRoom = append(x.headerRoom, value)
	n := len(x.headerRoom)
	x.w.Header()[key] = x.headerRoom[n-1 : n : n]
}

// handlerBody returns the bytes of a media handler's body: PostgreSQL
// sends a value that is not text hex-encoded (request.Media.Binary), and
// it is decoded in place.
func handlerBody(m request.Media, body []byte) ([]byte, error) {
	if !m.Binary || body == nil {
		return body, nil
	}
	n, err := hex.Decode(body, body)
	if err != nil {
		return nil, fmt.Errorf("decode a media handler's body: %w", err)
	}
	return body[:n], nil
}

// heldBodyBytes bounds a body that the servers SVC's handler runs under
// hold whole before they send the header (http1 up to 32 KiB, net/http's
// up to 2 KiB), and so declare the length of themselves: setting
// Content-Length for it would cost a string, a header entry, and the
// server's parse of it back.
const heldBodyBytes = 2 << 10

// writeBody sends a body PostgreSQL built, after the CSV header line head
// (see csvHead) when there is one. head may be shared, so it is never
// written to: an empty body takes it without its newline.
func writeBody(x *exchange, status int, head, body []byte) {
	if len(head) > 0 && len(body) == 0 {
		head = head[:len(head)-1]
	}
	// With the length known, the server sends the body as is rather than
	// chunked; it gathers the two writes into one. A body the server
	// holds whole it declares itself (heldBodyBytes).
	if n := len(head) + len(body); n > heldBodyBytes {
		x.setHeader("Content-Length", strconv.Itoa(n))
	}
	x.w.WriteHeader(status)
	x.w.Write(head)
	x.w.Write(body)
}

// preferenceApplied renders the Preference-Applied header in PostgREST's
// fixed order; "" when nothing was applied.
func preferenceApplied(pr request.Preferences, h appliedPrefs) string {
	var out []string
	add := func(ok bool, name, value string) {
		if ok && value != "" {
			out = append(out, name+"="+value)
		}
	}
	w := h.write
	add(w != nil && w.Kind == plan.Insert && w.Upsert(), "resolution", pr.Resolution)
	add(w != nil && w.Kind != plan.Delete, "missing", pr.Missing)
	add(w != nil, "return", pr.Return)
	add(true, "params", pr.Params)
	add(true, "count", pr.Count)
	add(h.tx, "tx", pr.Tx)
	add(true, "handling", pr.Handling)
	add(h.timezone, "timezone", pr.Timezone)
	if pr.MaxAffected != nil && pr.Handling == "strict" && w != nil && (w.Kind == plan.Update || w.Kind == plan.Delete) {
		out = append(out, "max-affected="+strconv.FormatInt(*pr.MaxAffected, 10))
	}
	return strings.Join(out, ", ")
}

// Answering rows, a relation's (read.go) or a function's (call.go): the
// range headers, the status they decide, the count, the CSV header line;
// streamed, as server/stream joins them.

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
	// (query.Streamed), joined as frame says (server/stream).
	streamed bool
	frame    query.Framing
}

// bytes counts the texts r holds.
func (r *rowsReply) bytes() int { return len(r.location) + len(r.head) + shapes.Texts(&r.media) }

// noLimit is rowsReply.limit for a page nothing bounds.
const noLimit = -1

func newRowsReply(p *plan.Read) rowsReply {
	rep := rowsReply{offset: p.Offset, limit: noLimit, count: p.Count, maxRows: p.MaxRows, media: p.Media,
		head: csvHead(&p.Node, p.Media), warning: legacyNamesWarning(p), streamed: query.Streamed(p)}
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
	writeBody(x, status, rep.head, body)
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
	x.setDefault("Content-Type", rep.media.ContentType())
	x.setDefault("Range-Unit", "items")
	if streamed {
		x.setDefault("Content-Range", streamedRange(rep.offset, total))
	} else {
		x.setDefault("Content-Range", contentRange(rep.offset, res.PageCount, total))
	}
	if rep.location != "" {
		x.setDefault("Content-Location", x.canonicalURL(rep.location))
	}
	if v := preferenceApplied(pr, applied); v != "" {
		x.setDefault("Preference-Applied", v)
	}
	if rep.warning != "" {
		x.setDefault("Warning", rep.warning)
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

// streamRows readies x.sink for the rows of a streamed answer, joined as
// frame says after the CSV header line head, whose header, should it
// stream, header sets; it returns the step's row function. The answer
// may stream unless a check must see every row before the commit.
func (s *Server) streamRows(x *exchange, header stream.Header[*exchange], frame query.Framing, head []byte) dbexec.RowFunc {
	x.sink.Start(x, x.w, &x.res, header, frame, head, x.tx.Check == nil, &s.streaming)
	// The rows accumulate: a run on another session (a stale one's) must
	// start from none.
	x.tx.Rewind = x.sinkRewind
	return x.sinkRow
}

// respondStreamed completes the answer of a streamed read: the rest of a
// body that has streamed, or the whole one.
func (s *Server) respondStreamed(x *exchange, pr request.Preferences, rep *rowsReply) error {
	if err := x.sink.End(); err != nil {
		return err
	}
	if x.sink.Started() {
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
// its template when it has one (server/shapes), which holds the query
// string parsed, and then the request's target itself when that is the
// canonical URL.
func (x *exchange) canonicalURL(path string) string {
	if x.template != nil {
		return x.template.CanonicalTarget(path, x.r.URL.RawQuery, x.r.RequestURI)
	}
	return request.CanonicalURL(path, x.r.URL.RawQuery)
}

// legacyNamesWarning is the Warning header PostgREST sends with an answer
// whose parameters addressed aliased embeds by their relations' names
// (url-use-legacy-target-names): a deprecation, code 299, naming the
// alias to use for each; "" when there is none. The agent is the product
// of the naming p was planned under with SVC's version, as PostgREST's is
// its own.
func legacyNamesWarning(p *plan.Read) string {
	names := p.Node.LegacyNames()
	if len(names) == 0 {
		return ""
	}
	updates := make([]string, len(names))
	for i, l := range names {
		updates[i] = "`" + l.Name + "` to `" + l.Alias + "`"
	}
	text := "Embedded resource was referenced by relation name even though it has an alias. " +
		"This is deprecated and will stop working in a future release. Update " + strings.Join(updates, ", ") +
		" in query string filters, orders or limits."
	return "299 " + p.Product + "v" + snapshot.SVCVersion + " " + apierr.QuotedString(text)
}
