package stream

import (
	"net/http"
	"strconv"
	"time"

	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/query"
)

// A streamed read's statement returns a row per row of its body
// (query.Streamed), which a Sink joins as it arrives. A body that ends
// within server-response-buffer-bytes is answered whole, exactly as an
// aggregate would have been (Content-Length, the counted range); one that
// outgrows it has its status line and header sent from what the first
// row carried, and then leaves chunked, 64 KiB at a time, while
// PostgreSQL still sends the rest: svc-serve holds the buffer and a row,
// never the result. A failure after the header left cannot be answered
// any more: the response is cut (serve), with no last chunk, so that no
// client takes it for a whole one.

// Chunk is how much of a streamed body is written at once.
const Chunk = 64 << 10

// Header sets the header of a streamed answer of x, from what the rows
// so far carried (res), and returns its status; X is the request the
// answer is of, which the Sink hands back without reading.
type Header[X any] interface {
	StreamHeader(x X, res *dbexec.Result) (int, error)
}

// Sink joins the rows of one streamed read into its body, for request X.
// Its zero value is unused; Start readies it.
type Sink[X any] struct {
	x      X
	header Header[X]
	w      http.ResponseWriter
	res    *dbexec.Result
	frame  query.Framing
	// head is the CSV header line, newline included, for CSV bodies.
	head []byte
	// limit is server-response-buffer-bytes.
	limit int
	// mayStream is unset when the answer must be whole (a check reads
	// every row before the commit).
	mayStream bool
	// budget is the process's, and held what this body took of it.
	budget *Budget
	held   int
	// first is set once a row has arrived; started once the header left.
	first, started bool
	// joined counts the rows' texts in the body.
	joined int
	// slow is set when the client lagged behind past what it may, or a
	// write ran out of time (writer.go).
	slow bool
	// sendTimeout is server-stream-send-timeout; sw writes the chunks
	// once the answer streams.
	sendTimeout time.Duration
	sw          *writer
	// streams are the sessions slow clients may hold, and slot the one
	// this answer's holds, once its client lags.
	streams, slot chan struct{}
}

// Settings are what every streamed answer of a server obeys.
type Settings struct {
	// Limit is server-response-buffer-bytes: a body within it is
	// answered whole.
	Limit int
	// Budget bounds the bodies held at once across requests.
	Budget *Budget
	// SendTimeout is server-stream-send-timeout.
	SendTimeout time.Duration
	// Streams hold a token for each answer whose client lags behind:
	// half of db-pool, so that slow clients cannot hold every session.
	Streams chan struct{}
}

// Start readies k for the rows of a streamed answer of x into res, joined
// as frame says, after the CSV header line head; header makes its header
// when it streams. The answer may stream unless mayStream is unset (a
// check must see every row before the commit).
func (k *Sink[X]) Start(x X, w http.ResponseWriter, res *dbexec.Result, header Header[X], frame query.Framing, head []byte,
	mayStream bool, set *Settings) {
	*k = Sink[X]{x: x, header: header, w: w, res: res, frame: frame, head: head, limit: set.Limit, budget: set.Budget,
		sendTimeout: set.SendTimeout, streams: set.Streams, mayStream: mayStream}
}

// Row takes one row of the statement: the count, the flag of a row of
// the body, its text, and the response settings.
func (k *Sink[X]) Row(v [][]byte) error {
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
func (k *Sink[X]) grown() error {
	n := len(k.res.Body)
	if k.started {
		if n >= Chunk {
			return k.flush()
		}
		return nil
	}
	if !k.mayStream || n <= Chunk && n <= k.limit {
		return nil
	}
	if n <= k.limit && k.budget.take(&k.held, n) {
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
func (k *Sink[X]) begin() error {
	status, err := k.header.StreamHeader(k.x, k.res)
	if err != nil {
		return err
	}
	k.w.Header().Del("Content-Length")
	k.w.WriteHeader(status)
	if len(k.head) > 0 {
		k.w.Write(k.head)
	}
	k.sw = startWriter(k.w, k.sendTimeout)
	return nil
}

// flush hands the body held so far to the writer.
func (k *Sink[X]) flush() error {
	sw := k.sw
	if sw.failed.Load() {
		k.slow = sw.slow.Load()
		return dbexec.ErrClientGone // dbexec has PostgreSQL stop the statement
	}
	// In chunks of Chunk, so that the writer's buffers stay that
	// small whatever the body held when it started to stream.
	for body := k.res.Body; len(body) > 0; {
		n := min(len(body), Chunk)
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
func (k *Sink[X]) lagging() bool {
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

// Release gives back what the sink took: its writer, stopped, its share
// of the budget and its slot among the slow clients'.
func (k *Sink[X]) Release() {
	if k.sw != nil {
		k.sw.close()
		k.sw = nil
	}
	k.budget.give(&k.held)
	if k.slot != nil {
		<-k.slot
		k.slot = nil
	}
}

// End completes the body once every row has arrived: it writes the rest
// of a streamed body, or closes the held one for the answer to send.
func (k *Sink[X]) End() error {
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

// Rewind drops what the rows handed over before the request runs again
// (dbexec.Tx.Rewind); false once some of it has left.
func (k *Sink[X]) Rewind() bool {
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

// Started reports whether the answer's header has left: the body can
// then only be cut.
func (k *Sink[X]) Started() bool { return k.started }

// NextBatch has the rows of the next run of the statement (a JSON Lines
// batch's) count on: the batch's total rides on its first row.
func (k *Sink[X]) NextBatch() { k.first = false }

// Slow reports whether the answer was cut for a client that read too
// slowly (server-stream-send-timeout, or lagging while every session
// slow clients may hold was taken), and says the bounds it passed.
func (k *Sink[X]) Slow() (slow bool, timeout time.Duration, sessions int) {
	return k.slow, k.sendTimeout, cap(k.streams)
}
