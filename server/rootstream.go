package server

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/dbexec"
)

// A root document the cache does not hold whole is written as it comes:
// decompressed from the copy the cache keeps compressed, with the
// Content-Length it knows, or built as it is written (openapi.Doc.Write)
// when it is too large for the cache even compressed, or the cache is off.
// A build is held up to server-response-buffer-bytes (past 64 KiB, within
// the process's server-response-buffers-max-bytes, as bodies of rows
// are) and answered whole, with Content-Length, exactly as a kept
// document; past it the header leaves, and the rest follows chunked,
// streamChunk at a time, through a streamWriter: svc-serve holds the
// buffer and one path or schema, never the document. A client must take
// each chunk within server-stream-send-timeout; the answer holds no
// database session, so a slow client may lag as long as that allows. A
// failure once the header has left cuts the response (no last chunk).

// writeDocument answers x with the document x.doc, whose headers but
// Content-Length are set.
func (s *Server) writeDocument(x *exchange) error {
	d := &docSink{x: x, limit: s.cfg.ServerResponseBufferBytes, budget: s.bodies,
		timeout: s.cfg.ServerStreamSendTimeout}
	defer d.give()
	ctx := x.r.Context()
	if x.r.Method == http.MethodHead {
		size := x.doc.Size
		if size < 0 {
			// Built only to be measured.
			var n counter
			if err := x.doc.Write(ctx, &n); err != nil {
				return rootFailure(x, err)
			}
			size = int64(n)
		}
		x.w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		x.w.WriteHeader(http.StatusOK)
		return nil
	}
	if x.doc.Size >= 0 {
		d.begin(x.doc.Size)
	}
	if err := x.doc.Write(ctx, d); err != nil {
		if d.sw != nil {
			s.cutDocument(x, d, err)
		}
		return rootFailure(x, err)
	}
	if d.sw == nil {
		x.w.Header().Set("Content-Length", strconv.Itoa(len(d.buf)))
		x.w.WriteHeader(http.StatusOK)
		x.w.Write(d.buf)
		return nil
	}
	if err := d.end(); err != nil {
		s.cutDocument(x, d, err)
	}
	return nil
}

// rootFailure is the error a root answer fails with: the client gone, or
// the server's fault.
func rootFailure(x *exchange, err error) error {
	if errors.Is(err, dbexec.ErrClientGone) || x.r.Context().Err() != nil {
		return dbexec.ErrClientGone
	}
	return apierr.Internal(err)
}

// cutDocument ends a document whose header has left, after err: the
// connection is closed without the last chunk (http.ErrAbortHandler), so
// that the client sees the document incomplete.
func (s *Server) cutDocument(x *exchange, d *docSink, err error) {
	switch {
	case errors.Is(err, errTooSlow):
		s.log.Info("a client read the root document too slowly: it did not take a chunk within server-stream-send-timeout; the response is cut",
			"timeout", d.timeout.String())
	case errors.Is(err, dbexec.ErrClientGone) || x.r.Context().Err() != nil:
		s.log.Debug("the root document's client left before its end")
	default:
		s.log.Error("the root document failed after its header was sent; the response is cut", "error", err)
	}
	d.stop()
	d.give()
	panic(http.ErrAbortHandler)
}

// docSink is where a root document is written: held until it outgrows
// what it may hold, then streamed.
type docSink struct {
	x       *exchange
	limit   int
	budget  *bodyBudget
	timeout time.Duration
	// held is what buf took of the budget.
	held int
	// buf is the document held, until the header leaves.
	buf []byte
	// sw writes the chunks once the header has left; chunk is the one
	// being filled.
	sw    *streamWriter
	chunk []byte
}

func (d *docSink) Write(p []byte) (int, error) {
	if d.sw == nil {
		d.buf = append(d.buf, p...)
		if n := len(d.buf); n <= streamChunk || n <= d.limit && d.take(n) {
			return len(p), nil
		}
		d.begin(-1)
		held := d.buf
		d.buf = nil
		d.give()
		return len(p), d.write(held)
	}
	return len(p), d.write(p)
}

// begin sends the header, with Content-Length when size is known, and
// starts the writer of the chunks.
func (d *docSink) begin(size int64) {
	h := d.x.w.Header()
	if size >= 0 {
		h.Set("Content-Length", strconv.FormatInt(size, 10))
	} else {
		h.Del("Content-Length")
	}
	d.x.w.WriteHeader(http.StatusOK)
	d.sw = startWriter(d.x.w, d.timeout)
}

// write hands p to the writer, a chunk once streamChunk is filled.
func (d *docSink) write(p []byte) error {
	for len(p) > 0 {
		if d.chunk == nil {
			d.chunk = d.sw.buffer()
		}
		n := min(len(p), streamChunk-len(d.chunk))
		d.chunk, p = append(d.chunk, p[:n]...), p[n:]
		if len(d.chunk) == streamChunk {
			if err := d.send(); err != nil {
				return err
			}
		}
	}
	return nil
}

// send hands the chunk filled to the writer. The answer holds no
// database session, so its client may lag (the send timeout alone bounds
// it).
func (d *docSink) send() error {
	if d.sw.failed.Load() {
		if d.sw.slow.Load() {
			return errTooSlow
		}
		return dbexec.ErrClientGone
	}
	chunk := d.chunk
	d.chunk = nil
	return d.sw.send(chunk, func() bool { return true })
}

// end sends the last chunk and waits for the writer to write it.
func (d *docSink) end() error {
	if len(d.chunk) > 0 {
		if err := d.send(); err != nil {
			return err
		}
	}
	sw := d.sw
	d.sw = nil
	if !sw.close() {
		if sw.slow.Load() {
			return errTooSlow
		}
		return dbexec.ErrClientGone
	}
	return nil
}

// stop stops the writer, whatever it has left to write.
func (d *docSink) stop() {
	if d.sw != nil {
		d.sw.close()
		d.sw = nil
	}
}

// take has the document hold n bytes, and reports whether the budget
// allows it: as a body of rows (bodyBudget.take), past its first
// streamChunk.
func (d *docSink) take(n int) bool {
	b := d.budget
	more := n - streamChunk - d.held
	if b == nil || more <= 0 || b.max.Load() <= 0 {
		return true
	}
	if b.used.Add(int64(more)) > b.max.Load() {
		b.used.Add(-int64(more))
		return false
	}
	d.held += more
	return true
}

// give gives back what the document held of the budget.
func (d *docSink) give() {
	if d.budget != nil && d.held > 0 {
		d.budget.used.Add(-int64(d.held))
		d.held = 0
	}
}

// counter counts the bytes written to it.
type counter int64

func (c *counter) Write(p []byte) (int, error) {
	*c += counter(len(p))
	return len(p), nil
}
