package server

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Observation of requests: the access log line, log-query, Server-Timing,
// the trace header and the request metrics all read one recorder that
// Server.ServeHTTP wraps around the ResponseWriter. Recorders are pooled,
// so observing a request allocates nothing unless a header or a log line
// is actually produced.

// recorder is the ResponseWriter handlers write to. It notes the status and
// the body's size, and adds Server-Timing when the header goes out, the
// last moment a header can be added.
type recorder struct {
	http.ResponseWriter
	status      int
	bytes       int64
	wroteHeader bool
	// timing is server-timing-enabled; when false no clock is read
	// beyond the request's start.
	timing bool
	start  time.Time
	// jwt and parse are the time spent verifying the token and parsing
	// the request, parts of the time before the database.
	jwt, parse time.Duration
	// dbStart and dbEnd bound the database round trip(s); zero when the
	// request did not reach the database.
	dbStart, dbEnd time.Time
	// sql is the request's main statement, for log-query.
	sql string
}

var recorders = sync.Pool{New: func() any { return new(recorder) }}

// statusClientClosed is nginx's status for a request its client abandoned.
const statusClientClosed = 499

// WriteHeader records the status and adds Server-Timing and the default
// Vary.
func (rec *recorder) WriteHeader(code int) {
	if !rec.wroteHeader {
		rec.wroteHeader = true
		rec.status = code
		h := rec.Header()
		if rec.timing {
			h.Set("Server-Timing", rec.serverTiming(time.Now()))
		}
		addDefaultVary(h)
	}
	rec.ResponseWriter.WriteHeader(code)
}

// defaultVary is what an answer depends on besides its URL, as PostgREST
// declares it, so that a cache keeps a CSV answer apart from a JSON one
// and a counted or ranged page apart from the whole.
var defaultVary = []string{"Accept, Prefer, Range"}

// addDefaultVary declares defaultVary on an answer that is not an error
// (errors carry Proxy-Status; PostgREST's carry no Vary) and whose Vary no
// function has set through response.headers. The CORS middleware's
// "Vary: Origin" is kept beside it.
func addDefaultVary(h http.Header) {
	if h.Get("Proxy-Status") != "" {
		return
	}
	vary := h["Vary"]
	if len(vary) == 0 {
		h["Vary"] = defaultVary
		return
	}
	if len(vary) == 1 && vary[0] == "Origin" {
		h["Vary"] = []string{"Origin", defaultVary[0]}
	}
}

// Write counts the body's bytes.
func (rec *recorder) Write(b []byte) (int, error) {
	if !rec.wroteHeader {
		rec.WriteHeader(http.StatusOK)
	}
	n, err := rec.ResponseWriter.Write(b)
	rec.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (rec *recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }

// serverTiming renders the Server-Timing value at now, in milliseconds,
// under PostgREST's names: jwt the token's verification, parse the
// request's, plan the rest of the time before the database (planning,
// building SQL), transaction the database round trip(s), response the
// time from the database's answer to the header. The body's own write
// comes after the header and cannot be in it. A request that never
// reached the database has no transaction or response.
func (rec *recorder) serverTiming(now time.Time) string {
	var buf [128]byte
	b := appendTiming(buf[:0], "jwt", rec.jwt)
	b = append(b, ", "...)
	b = appendTiming(b, "parse", rec.parse)
	b = append(b, ", "...)
	if rec.dbStart.IsZero() {
		return string(appendTiming(b, "plan", now.Sub(rec.start)-rec.jwt-rec.parse))
	}
	b = appendTiming(b, "plan", rec.dbStart.Sub(rec.start)-rec.jwt-rec.parse)
	b = append(b, ", "...)
	b = appendTiming(b, "transaction", rec.dbEnd.Sub(rec.dbStart))
	b = append(b, ", "...)
	b = appendTiming(b, "response", now.Sub(rec.dbEnd))
	return string(b)
}

func appendTiming(b []byte, name string, d time.Duration) []byte {
	b = append(b, name...)
	b = append(b, ";dur="...)
	return strconv.AppendFloat(b, float64(d.Microseconds())/1000, 'f', 1, 64)
}

// stageStart begins timing a stage before the database when w records
// Server-Timing: rec is nil otherwise, and no clock is read.
func stageStart(w http.ResponseWriter) (rec *recorder, t0 time.Time) {
	if rec, _ = w.(*recorder); rec == nil || !rec.timing {
		return nil, time.Time{}
	}
	return rec, time.Now()
}

// jwtDone and parseDone add the time since t0 to the jwt or the parse
// figure of rec; a nil rec (no Server-Timing) notes nothing.
func (rec *recorder) jwtDone(t0 time.Time) {
	if rec != nil {
		rec.jwt += time.Since(t0)
	}
}

func (rec *recorder) parseDone(t0 time.Time) {
	if rec != nil {
		rec.parse += time.Since(t0)
	}
}

// executeFor is execute for a request answered through w: it notes the
// main statement (the last step) for log-query and, with
// server-timing-enabled, when the database round trip began and ended.
func (s *Server) executeFor(w http.ResponseWriter, r *http.Request, tx txSpec, steps ...step) error {
	rec, _ := w.(*recorder)
	if rec == nil {
		return s.executeRouted(w, r, tx, steps)
	}
	if len(steps) > 0 {
		rec.sql = steps[len(steps)-1].stmt.SQL
	}
	if !rec.timing {
		return s.executeRouted(w, r, tx, steps)
	}
	rec.dbStart = time.Now()
	err := s.executeRouted(w, r, tx, steps)
	rec.dbEnd = time.Now()
	return err
}

// observe serves r with a recorder, then counts and logs the request. The
// trace header is echoed first, so error answers carry it too.
func (s *Server) observe(w http.ResponseWriter, r *http.Request) {
	rec := recorders.Get().(*recorder)
	*rec = recorder{ResponseWriter: w, status: http.StatusOK, timing: s.cfg.ServerTimingEnabled, start: time.Now()}
	var trace string
	if s.traceHeader != "" {
		if trace = r.Header.Get(s.traceHeader); trace != "" {
			w.Header().Set(s.traceHeader, trace)
		}
	}
	s.dispatch(rec, r)
	d := time.Since(rec.start)
	if !rec.wroteHeader && r.Context().Err() != nil {
		// The client went away and was sent nothing: count and log it
		// as nginx does, 499, rather than as the 200 never sent.
		rec.status = statusClientClosed
	}
	if s.metrics != nil {
		s.metrics.observe(r.URL.Path, r.Method, rec.status, d)
	}
	s.logRequest(r, rec, d, trace)
	*rec = recorder{} // keep no writer or statement alive in the pool
	recorders.Put(rec)
}

// logRequest writes the access log line at PostgREST's levels: info for
// every request, warn for 4xx, error for 5xx (so log-level = warn logs
// only the failed ones). With log-query = main-query the main statement
// goes in a line of its own, just before, at the same level.
func (s *Server) logRequest(r *http.Request, rec *recorder, d time.Duration, trace string) {
	level := slog.LevelInfo
	switch {
	case rec.status >= 500:
		level = slog.LevelError
	case rec.status >= 400:
		level = slog.LevelWarn
	}
	ctx := context.Background()
	if !s.log.Enabled(ctx, level) {
		return
	}
	target := r.RequestURI // as received, query string included; set by net/http
	if target == "" {
		target = r.URL.RequestURI()
	}
	if s.logQuery && rec.sql != "" {
		// The target ties the line to its request's when requests interleave.
		s.log.LogAttrs(ctx, level, "query", slog.String("path", target), slog.String("sql", rec.sql))
	}
	attrs := [...]slog.Attr{slog.String("method", r.Method), slog.String("path", target),
		slog.Int("status", rec.status), slog.Duration("duration", d), slog.Int64("bytes", rec.bytes),
		slog.String("trace", trace)}
	n := len(attrs)
	if trace == "" {
		n-- // five attributes fit in a log record without allocating
	}
	s.log.LogAttrs(ctx, level, "request", attrs[:n]...)
}
