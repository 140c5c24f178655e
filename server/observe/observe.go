package observe

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/svc-dev/svc/server/admin"
	"github.com/svc-dev/svc/server/apierr"
)

// Observation of requests: the access log line, log-query, Server-Timing,
// the trace header and the request metrics all read one recorder that
// Observer.Serve wraps around the ResponseWriter. The recorder sees what
// goes to the client (status, bytes); what only the pipeline knows (the
// main statement, the database's time) it learns from the request's
// observation, which the recorder carries (Of). Recorders are pooled, so
// observing a request allocates nothing.

// recorder is the ResponseWriter handlers write to. It notes the status and
// the body's size, and adds Server-Timing when the header goes out, the
// last moment a header can be added.
type recorder struct {
	http.ResponseWriter
	status      int
	bytes       int64
	wroteHeader bool
	start       time.Time
	obs         Observation
	// vary is the Vary the answer carries unless it is an error or a
	// function set its own (vary.go).
	vary []string
}

// Observation is what the pipeline tells the observer of a request. Its
// methods may be called on nil, a request served unobserved.
type Observation struct {
	// timing is server-timing-enabled; when false no clock is read
	// beyond the request's start.
	timing bool
	// served is when the observer began to serve the request, read only
	// with timing: the head's own arrival (the recorder's start) is the
	// client's time, not the server's, and Server-Timing leaves it out.
	served time.Time
	// jwt and parse are the time spent verifying the token and parsing
	// the request, parts of the time before the database.
	jwt, parse time.Duration
	// dbStart and dbEnd bound the database round trip(s), or for the
	// root the building of its document (its content, which PostgREST
	// reads from the database); zero when the request did not reach the
	// database.
	dbStart, dbEnd time.Time
	// answered is when an answer made without the database (OPTIONS) was
	// ready: what comes after it is the response's time.
	answered time.Time
	// sql is the request's main statement, for log-query.
	sql string
	// reason is why a request was answered 401, for its log line
	// (Refused).
	reason string
}

// Refused notes why the pipeline answers err, when it is a 401: the
// access log line then says why the caller was not let in (a bad
// signature, an expired token, the audience), which an operator
// otherwise cannot tell from the status. The client's message comes
// first, then what only the log may see (apierr.Error.Cause).
func (obs *Observation) Refused(err error) {
	var e *apierr.Error
	if obs == nil || !errors.As(err, &e) || e.Status != http.StatusUnauthorized {
		return
	}
	obs.reason = e.Message
	if e.Cause != nil {
		obs.reason += ": " + e.Cause.Error()
	}
}

// Of returns the observation of the request w answers, nil for a request
// served unobserved. w is the observer's writer, or one a middleware
// wrapped around it that unwraps as http.ResponseController expects.
// The writer carries it rather than the request's context: a value in
// the context costs a copy of the request besides.
func Of(w http.ResponseWriter) *Observation {
	for {
		switch v := w.(type) {
		case *recorder:
			return &v.obs
		case interface{ Unwrap() http.ResponseWriter }:
			w = v.Unwrap()
		default:
			return nil
		}
	}
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
		if rec.obs.timing {
			h.Set("Server-Timing", rec.serverTiming(time.Now()))
		}
		addDefaultVary(h, rec.vary)
	}
	rec.ResponseWriter.WriteHeader(code)
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
// reached the database has no transaction, and no response unless it was
// answered without it (OPTIONS): a refused one has neither.
func (rec *recorder) serverTiming(now time.Time) string {
	var buf [128]byte
	obs := &rec.obs
	b := appendTiming(buf[:0], "jwt", obs.jwt)
	b = append(b, ", "...)
	b = appendTiming(b, "parse", obs.parse)
	b = append(b, ", "...)
	if obs.dbStart.IsZero() && !obs.answered.IsZero() {
		b = appendTiming(b, "plan", obs.answered.Sub(obs.served)-obs.jwt-obs.parse)
		b = append(b, ", "...)
		return string(appendTiming(b, "response", now.Sub(obs.answered)))
	}
	if obs.dbStart.IsZero() {
		return string(appendTiming(b, "plan", now.Sub(obs.served)-obs.jwt-obs.parse))
	}
	b = appendTiming(b, "plan", obs.dbStart.Sub(obs.served)-obs.jwt-obs.parse)
	b = append(b, ", "...)
	b = appendTiming(b, "transaction", obs.dbEnd.Sub(obs.dbStart))
	b = append(b, ", "...)
	b = appendTiming(b, "response", now.Sub(obs.dbEnd))
	return string(b)
}

func appendTiming(b []byte, name string, d time.Duration) []byte {
	b = append(b, name...)
	b = append(b, ";dur="...)
	return strconv.AppendFloat(b, float64(d.Microseconds())/1000, 'f', 1, 64)
}

// StageStart begins timing a stage before the database when obs records
// Server-Timing; otherwise it reads no clock and returns the zero time.
func (obs *Observation) StageStart() time.Time {
	if obs == nil || !obs.timing {
		return time.Time{}
	}
	return time.Now()
}

// JWTDone and ParseDone add the time since t0 (from StageStart) to the
// jwt or the parse figure; after a zero t0 they note nothing.
func (obs *Observation) JWTDone(t0 time.Time) {
	if !t0.IsZero() {
		obs.jwt += time.Since(t0)
	}
}

// ParseDone is JWTDone for the parse figure.
func (obs *Observation) ParseDone(t0 time.Time) {
	if !t0.IsZero() {
		obs.parse += time.Since(t0)
	}
}

// AnsweredNow notes, with server-timing-enabled, that an answer made
// without the database is ready.
func (obs *Observation) AnsweredNow() {
	if obs != nil && obs.timing {
		obs.answered = time.Now()
	}
}

// TransactionStart notes, with server-timing-enabled, when a request's
// transaction began: its database round trip, or the building of the
// root's document (its content, which PostgREST reads from the database).
func (obs *Observation) TransactionStart() {
	if obs != nil && obs.timing {
		obs.dbStart = time.Now()
	}
}

// TransactionDone notes, with server-timing-enabled, when it ended.
func (obs *Observation) TransactionDone() {
	if obs != nil && obs.timing {
		obs.dbEnd = time.Now()
	}
}

// Statement notes the request's main statement for log-query.
func (obs *Observation) Statement(sql string) {
	if obs != nil {
		obs.sql = sql
	}
}

// Observer observes the requests a handler serves: it times them, counts
// them in the metrics and writes their access log line.
type Observer struct {
	// Next is the handler observed.
	Next http.Handler
	// Timing is server-timing-enabled.
	Timing bool
	// TraceHeader is server-trace-header in canonical form, "" for none.
	TraceHeader string
	// LogQuery is log-query = main-query.
	LogQuery bool
	// ManySchemas is set when db-schemas lists several schemas: the
	// answers vary with the profile headers (vary.go).
	ManySchemas bool
	// Metrics counts requests; nil for none.
	Metrics *admin.Metrics
	Log     *slog.Logger
}

// started is when r began: when its head began to arrive, as a server
// that reads the clock then tells through r's context (server/http1),
// else now.
func started(r *http.Request) time.Time {
	if s, ok := r.Context().(interface{ Started() time.Time }); ok {
		return s.Started()
	}
	return time.Now()
}

// Serve serves r with a recorder, then counts and logs the request. The
// trace header is echoed first, so error answers carry it too.
func (s *Observer) Serve(w http.ResponseWriter, r *http.Request) {
	rec := recorders.Get().(*recorder)
	*rec = recorder{ResponseWriter: w, status: http.StatusOK, start: started(r),
		obs: Observation{timing: s.Timing}, vary: defaultVary(s.ManySchemas, r.Method)}
	if s.Timing {
		rec.obs.served = time.Now()
	}
	var trace string
	if s.TraceHeader != "" {
		if trace = r.Header.Get(s.TraceHeader); trace != "" {
			w.Header().Set(s.TraceHeader, trace)
		}
	}
	s.Next.ServeHTTP(rec, r)
	d := time.Since(rec.start)
	gone := !rec.wroteHeader && r.Context().Err() != nil
	if gone {
		// The client went away and was sent nothing: count and log it
		// as nginx does, 499, rather than as the 200 never sent.
		rec.status = statusClientClosed
	}
	if s.Metrics != nil {
		s.Metrics.Observe(r.URL.Path, r.Method, rec.status, d)
	}
	s.logRequest(r, rec, d, trace)
	*rec = recorder{} // keep no writer or statement alive in the pool
	recorders.Put(rec)
	if gone {
		// Nor is it sent anything now: net/http's server would answer an
		// empty 200, a success for work that was cancelled, which a client
		// that only half-closed would read. Aborting closes the connection
		// unanswered.
		panic(http.ErrAbortHandler)
	}
}

// logRequest writes the access log line at PostgREST's levels: info for
// every request, warn for 4xx, error for 5xx (so log-level = warn logs
// only the failed ones). With log-query = main-query the main statement
// goes in a line of its own, just before, at the same level.
func (s *Observer) logRequest(r *http.Request, rec *recorder, d time.Duration, trace string) {
	level := slog.LevelInfo
	switch {
	case rec.status >= 500:
		level = slog.LevelError
	case rec.status >= 400:
		level = slog.LevelWarn
	}
	ctx := context.Background()
	if !s.Log.Enabled(ctx, level) {
		return
	}
	target := r.RequestURI // as received, query string included; set by net/http
	if target == "" {
		target = r.URL.RequestURI()
	}
	if s.LogQuery && rec.obs.sql != "" {
		// The target ties the line to its request's when requests interleave.
		s.Log.LogAttrs(ctx, level, "query", slog.String("path", target), slog.String("sql", rec.obs.sql))
	}
	// Five attributes fit in a log record without allocating: the
	// others are added only when there is something to say.
	attrs := [...]slog.Attr{slog.String("method", r.Method), slog.String("path", target),
		slog.Int("status", rec.status), slog.Duration("duration", d), slog.Int64("bytes", rec.bytes), {}, {}}
	n := 5
	if trace != "" {
		attrs[n] = slog.String("trace", trace)
		n++
	}
	if rec.obs.reason != "" {
		attrs[n] = slog.String("reason", rec.obs.reason)
		n++
	}
	s.Log.LogAttrs(ctx, level, "request", attrs[:n]...)
}
