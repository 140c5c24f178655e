package http1

import (
	"io"
	"time"
)

// requestBody is the body a handler reads. It counts what is read, asks
// the client for the body (100 Continue) when the client waits for that,
// and at the body's end arms the watcher, which then owns the connection's
// reads.
type requestBody struct {
	rc     io.ReadCloser
	c      *conn
	ctx    *requestCtx
	read   int64
	eof    bool
	expect bool // the client sends the body once asked
	asked  bool
}

func (b *requestBody) Read(p []byte) (int, error) {
	if b.expect && !b.asked {
		b.asked = true
		// Once the handler has answered it is too late to ask; what the
		// client sends anyway is still read, as net/http does.
		if !b.c.res.wroteHeader {
			b.c.out.body = append(b.c.out.body, "HTTP/1.1 100 Continue\r\n\r\n"...)
			b.c.out.flush()
		}
	}
	n, err := b.rc.Read(p)
	b.read += int64(n)
	if err == io.EOF && !b.eof {
		b.eof = true
		b.c.watch.arm(b.ctx, time.Now())
	}
	return n, err
}

// Close closes the body the request came with.
func (b *requestBody) Close() error { return b.rc.Close() }

// settle decides, as the answer's header goes out, what becomes of the
// body the handler left unread: up to maxDrainBytes is read and dropped
// so that the connection carries the next request; past that, or when
// the client still waits to be asked for it, the connection closes
// after the answer. It reports whether the body stays (partly) unread.
func (b *requestBody) settle(contentLength int64) (unread bool) {
	if b == nil || b.eof {
		return false
	}
	if b.expect && !b.asked {
		return true
	}
	if contentLength > 0 && contentLength-b.read >= maxDrainBytes {
		return true
	}
	n, err := io.CopyN(io.Discard, b.rc, maxDrainBytes+1)
	b.read += n
	if err == io.EOF {
		b.eof = true
		return false
	}
	return true
}
