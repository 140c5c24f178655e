package server

import (
	"errors"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
)

// A streamed read's statement returns a row per row of its body
// (query.Streamed), which rowSink joins as it arrives. A body that ends
// within server-response-buffer-bytes is answered whole, exactly as an
// aggregate would have been (Content-Length, the counted range); one that
// outgrows it has its status line and header sent from what the first
// row carried, and then leaves chunked, 64 KiB at a time, while
// PostgreSQL still sends the rest: svc-serve holds the buffer and a row,
// never the result. A failure after the header left cannot be answered
// any more: the response is cut (serve), with no last chunk, so that no
// client takes it for a whole one.

// streamChunk is how much of a streamed body is written at once.
const streamChunk = 64 << 10

// rowSink joins the rows of one streamed read into its body.
type rowSink struct {
	x     *exchange
	res   *dbexec.Result
	frame query.Framing
	// limit is server-response-buffer-bytes.
	limit int
	// mayStream is unset when the answer must be whole (a check reads
	// every row before the commit); rep and prefer make its header.
	mayStream bool
	rep       *rowsReply
	prefer    request.Preferences
	// write is set for a write's representation, whose header is a
	// write's (writeHeader) and rep then holds only its CSV header line.
	write *writeReply
	// budget is the process's, and held what this body took of it.
	budget *bodyBudget
	held   int
	// first is set once a row has arrived; started once the header left.
	first, started bool
	// joined counts the rows' texts in the body.
	joined int
	// slow is set when the client lagged behind past what it may, or a
	// write ran out of time (streamwriter.go).
	slow bool
	// sendTimeout is server-stream-send-timeout; sw writes the chunks
	// once the answer streams.
	sendTimeout time.Duration
	sw          *streamWriter
	// streams are the sessions slow clients may hold (Server.streams),
	// and slot the one this answer's holds, once its client lags.
	streams, slot chan struct{}
}

// row takes one row of the statement: the count, the flag of a row of
// the body, its text, and the response settings.
func (k *rowSink) row(v [][]byte) error {
	if len(v) != 5 {
		return errRowShape
	}
	res := k.res
	if !k.first {
		k.first = true
		if v[0] != nil {
			n, err := strconv.ParseInt(string(v[0]), 10, 64)
			if err != nil {
				return err
			}
			res.Total = &n
		}
	}
	// The settings as a function left them: the last row's stand.
	latest(&res.Headers, v[3])
	latest(&res.Status, v[4])
	if v[1] == nil {
		return nil // a page without rows
	}
	res.PageCount++
	text := v[2]
	if k.frame.Single {
		if res.PageCount == 1 {
			res.AppendBody(orNull(text))
		}
		return nil
	}
	switch {
	case text == nil && k.frame.SkipNull:
		return nil
	case k.joined == 0:
		res.AppendBodyString(k.frame.Open)
	default:
		res.AppendBodyString(k.frame.Sep)
	}
	k.joined++
	res.AppendBody(orNull(text))
	return k.grown()
}

// grown streams the body once it outgrows what it may hold.
func (k *rowSink) grown() error {
	n := len(k.res.Body)
	if k.started {
		if n >= streamChunk {
			return k.flush()
		}
		return nil
	}
	if !k.mayStream || n <= streamChunk && n <= k.limit {
		return nil
	}
	if n <= k.limit && k.budget.take(k, n) {
		return nil
	}
	if err := k.begin(); err != nil {
		return err
	}
	k.started = true
	return k.flush()
}

// begin sends the status line and header of a streamed answer, from
// what the rows so far carried, and starts its writer.
func (k *rowSink) begin() error {
	x := k.x
	var status int
	var err error
	if k.write != nil {
		status, err = writeHeader(x, k.write, k.res, true)
	} else {
		status, err = rowsHeader(x, k.prefer, k.rep, k.res, x.explain, x.applied, true)
	}
	if err != nil {
		return err
	}
	x.w.Header().Del("Content-Length")
	x.w.WriteHeader(status)
	if len(k.rep.head) > 0 {
		x.w.Write(k.rep.head)
	}
	k.sw = startWriter(x.w, k.sendTimeout)
	return nil
}

// flush hands the body held so far to the writer.
func (k *rowSink) flush() error {
	sw := k.sw
	if sw.failed.Load() {
		k.slow = sw.slow.Load()
		return dbexec.ErrClientGone // dbexec has PostgreSQL stop the statement
	}
	// In chunks of streamChunk, so that the writer's buffers stay that
	// small whatever the body held when it started to stream.
	for body := k.res.Body; len(body) > 0; {
		n := min(len(body), streamChunk)
		chunk := append(sw.buffer(), body[:n]...)
		body = body[n:]
		if err := sw.send(chunk, k.lagging); err != nil {
			k.slow = true
			return dbexec.ErrClientGone
		}
	}
	k.res.ResetBody()
	return nil
}

// lagging has the answer hold one of the sessions slow clients may hold,
// and reports whether it does.
func (k *rowSink) lagging() bool {
	if k.slot != nil {
		return true
	}
	select {
	case k.streams <- struct{}{}:
		k.slot = k.streams
		return true
	default:
		return false
	}
}

// release gives back what the sink took: its writer, stopped, its share
// of the budget and its slot among the slow clients'.
func (k *rowSink) release() {
	if k.sw != nil {
		k.sw.close()
		k.sw = nil
	}
	k.budget.give(k)
	if k.slot != nil {
		<-k.slot
		k.slot = nil
	}
}

// end completes the body once every row has arrived: it writes the rest
// of a streamed body, or closes the held one for the answer to send.
func (k *rowSink) end() error {
	if k.frame.Single {
		return nil
	}
	if k.joined == 0 {
		k.res.AppendBodyString(k.frame.Empty)
	} else {
		k.res.AppendBodyString(k.frame.Close)
	}
	if !k.started {
		return nil
	}
	if err := k.flush(); err != nil {
		return err
	}
	sw := k.sw
	k.sw = nil
	if !sw.close() {
		k.slow = sw.slow.Load()
		return dbexec.ErrClientGone
	}
	return nil
}

// rewind drops what the rows handed over before the request runs again
// (dbexec.Tx.Rewind); false once some of it has left.
func (k *rowSink) rewind() bool {
	if k.started {
		return false
	}
	k.res.ResetBody()
	k.res.Total, k.res.Headers, k.res.Status, k.res.PageCount = nil, nil, nil, 0
	k.first, k.joined = false, 0
	return true
}

// latest sets *dst to v unless it holds that already.
func latest(dst **string, v []byte) {
	switch {
	case v == nil:
		*dst = nil
	case *dst == nil || **dst != string(v):
		s := string(v)
		*dst = &s
	}
}

var nullJSON = []byte("null")

// orNull is text, or JSON's null for NULL, as json_agg renders it.
func orNull(text []byte) []byte {
	if text == nil {
		return nullJSON
	}
	return text
}

// errRowShape is a streamed statement's row that is not one: a bug.
var errRowShape = errorString("streamed read: a row of the wrong shape")

type errorString string

func (e errorString) Error() string { return string(e) }

// bodyBudget bounds the memory held bodies take across requests
// (server-response-buffers-max-bytes). A body takes from it what it holds
// past its first 64 KiB, which every body may hold, and gives it back
// when it ends; a body that cannot take more streams.
type bodyBudget struct {
	max, used atomic.Int64
}

// BodiesMax is the bound of the memory bodies may hold at once:
// server-response-buffers-max-bytes, and at most a quarter of limit, the
// memory the process's cgroup allows (0 for none), so that a container
// with little memory holds less before answers stream.
func BodiesMax(cfg *config.Config, limit int64) int {
	n := cfg.ServerResponseBuffersMaxBytes
	if limit > 0 && int64(n) > limit/4 {
		n = int(limit / 4)
	}
	return n
}

// processBodies is the process's budget: server-response-buffers-max-bytes
// is read at start, and a configuration reload's new Server shares it.
var processBodies bodyBudget

// setMax sets the budget's bound; 0 (a Config without its defaults)
// keeps the bound it has.
func (b *bodyBudget) setMax(n int) {
	if n > 0 {
		b.max.Store(int64(n))
	}
}

// take has k hold n bytes of body, and reports whether the budget allows
// it.
func (b *bodyBudget) take(k *rowSink, n int) bool {
	if b == nil {
		return true
	}
	more := n - streamChunk - k.held
	if more <= 0 {
		return true
	}
	max := b.max.Load()
	if max <= 0 {
		return true // no bound set: a Server built without New's defaults
	}
	if b.used.Add(int64(more)) > max {
		b.used.Add(-int64(more))
		return false
	}
	k.held += more
	return true
}

// give gives back what k held.
func (b *bodyBudget) give(k *rowSink) {
	if b != nil && k.held > 0 {
		b.used.Add(-int64(k.held))
		k.held = 0
	}
}

// cutStream ends x's response, whose header has left, after err: the
// connection is closed without the last chunk (http.ErrAbortHandler), so
// the client sees the body incomplete. The log says why, unless the
// client left.
func (s *Server) cutStream(x *exchange, err error) {
	switch {
	case x.sink.slow:
		s.log.Info("a streamed answer's client read too slowly: it did not take a chunk within server-stream-send-timeout, "+
			"or lagged behind while every session slow clients may hold (half of db-pool) was taken; the response is cut, "+
			"so that it holds no database session", "method", x.r.Method, "path", x.r.URL.Path,
			"timeout", x.sink.sendTimeout.String(), "slow sessions", cap(x.sink.streams))
	case errors.Is(err, dbexec.ErrClientGone):
		s.log.Debug("a streamed answer's client left before its end")
	default:
		s.log.Error("a streamed answer failed after its header was sent; the response is cut",
			"method", x.r.Method, "path", x.r.URL.Path, "error", err)
	}
	x.sink.release()
	x.res.Release()
	panic(http.ErrAbortHandler)
}
