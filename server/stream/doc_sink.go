package stream

import (
	"net/http"
	"strconv"
	"time"

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
// Chunk at a time, through a writer (writer.go): svc-serve holds the
// buffer and one path or schema, never the document. A client must take
// each chunk within server-stream-send-timeout; the answer holds no
// database session, so a slow client may lag as long as that allows. A
// failure once the header has left cuts the response (no last chunk).

// Doc is where a root document is written: held until it outgrows what
// it may hold, then streamed. Its zero value is unused; NewDoc makes one.
type Doc struct {
	w       http.ResponseWriter
	limit   int
	budget  *Budget
	timeout time.Duration
	// held is what buf took of the budget.
	held int
	// buf is the document held, until the header leaves.
	buf []byte
	// sw writes the chunks once the header has left; chunk is the one
	// being filled.
	sw    *writer
	chunk []byte
}

// NewDoc returns the Doc a document answering w is written to, held up
// to set.Limit.
func NewDoc(w http.ResponseWriter, set *Settings) *Doc {
	return &Doc{w: w, limit: set.Limit, budget: set.Budget, timeout: set.SendTimeout}
}

// Streaming reports whether the document's header has left.
func (d *Doc) Streaming() bool { return d.sw != nil }

// Held is the document held, while it is not Streaming.
func (d *Doc) Held() []byte { return d.buf }

// Timeout is the send timeout a chunk must be taken within.
func (d *Doc) Timeout() time.Duration { return d.timeout }

// Write holds p, or, once the document outgrows what it may hold,
// sends the header and streams it.
func (d *Doc) Write(p []byte) (int, error) {
	if d.sw == nil {
		d.buf = append(d.buf, p...)
		if n := len(d.buf); n <= Chunk || n <= d.limit && d.take(n) {
			return len(p), nil
		}
		d.Begin(-1)
		held := d.buf
		d.buf = nil
		d.Give()
		return len(p), d.write(held)
	}
	return len(p), d.write(p)
}

// Begin sends the header, with Content-Length when size is known, and
// starts the writer of the chunks.
func (d *Doc) Begin(size int64) {
	h := d.w.Header()
	if size >= 0 {
		h.Set("Content-Length", strconv.FormatInt(size, 10))
	} else {
		h.Del("Content-Length")
	}
	d.w.WriteHeader(http.StatusOK)
	d.sw = startWriter(d.w, d.timeout)
}

// write hands p to the writer, a chunk once Chunk is filled.
func (d *Doc) write(p []byte) error {
	for len(p) > 0 {
		if d.chunk == nil {
			d.chunk = d.sw.buffer()
		}
		n := min(len(p), Chunk-len(d.chunk))
		d.chunk, p = append(d.chunk, p[:n]...), p[n:]
		if len(d.chunk) == Chunk {
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
func (d *Doc) send() error {
	if d.sw.failed.Load() {
		if d.sw.slow.Load() {
			return ErrTooSlow
		}
		return dbexec.ErrClientGone
	}
	chunk := d.chunk
	d.chunk = nil
	return d.sw.send(chunk, func() bool { return true })
}

// End sends the last chunk and waits for the writer to write it.
func (d *Doc) End() error {
	if len(d.chunk) > 0 {
		if err := d.send(); err != nil {
			return err
		}
	}
	sw := d.sw
	d.sw = nil
	if !sw.close() {
		if sw.slow.Load() {
			return ErrTooSlow
		}
		return dbexec.ErrClientGone
	}
	return nil
}

// Stop stops the writer, whatever it has left to write.
func (d *Doc) Stop() {
	if d.sw != nil {
		d.sw.close()
		d.sw = nil
	}
}

// take has the document hold n bytes, and reports whether the budget
// allows it, as a body of rows.
func (d *Doc) take(n int) bool { return d.budget.take(&d.held, n) }

// Give gives back what the document held of the budget.
func (d *Doc) Give() { d.budget.give(&d.held) }
