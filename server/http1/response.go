package http1

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// maxHeldBody is how much of a body is held before the header goes
// out: enough for the whole of most bodies, so that the header can say
// their length and whether the connection stays open once the handler
// is done, as net/http decides.
const maxHeldBody = 32 << 10

// response is the http.ResponseWriter of a connection's current request.
// The body is held in the connection's output until the handler returns
// or it outgrows maxHeldBody; the header is then built in front of it
// and both leave in one write.
type response struct {
	c             *conn
	req           *http.Request
	header        http.Header
	status        int
	wroteHeader   bool // the handler's status is decided
	sentHeader    bool // the status line and header are queued
	chunked       bool
	closeAfter    bool
	bodyLeft      bool // the request's body stays partly unread
	fullDuplex    bool // the handler reads its body after its header left
	body          *requestBody
	contentLength int64 // declared by the handler; -1 when not
	// length is the Content-Length finish found, written with the header
	// rather than stored in it (a slice and a string per response); -1
	// when there is none to write.
	length  int64
	written int64
	sniff   []byte // the start of a HEAD body, for Content-Type
	line    []byte // scratch for chunk sizes
}

func (w *response) reset(req *http.Request, body *requestBody) {
	clear(w.header)
	*w = response{c: w.c, req: req, body: body, header: w.header, contentLength: -1, length: -1, sniff: w.sniff[:0], line: w.line[:0]}
}

// release drops the request.
func (w *response) release() { w.req, w.body = nil, nil }

// SetWriteDeadline sets the connection's write deadline, as net/http's
// response does for http.ResponseController: a handler streaming a long
// body bounds each write by it.
func (w *response) SetWriteDeadline(t time.Time) error {
	w.c.writeDeadline = true
	return w.c.rwc.SetWriteDeadline(t)
}

// SetReadDeadline sets the connection's read deadline, as net/http's
// response does for http.ResponseController: a handler reading a long
// body while it runs (EnableFullDuplex) bounds each read by it.
func (w *response) SetReadDeadline(t time.Time) error {
	// Under the watcher's lock: the watcher sets the deadline too, from
	// its own goroutine, once the body has been read.
	w.c.watch.mu.Lock()
	defer w.c.watch.mu.Unlock()
	return w.c.setReadDeadline(t)
}

// EnableFullDuplex lets the handler read its request's body after its
// header has left, as net/http's does: what is left of the body is then
// not drained when the header goes, and the connection closes after the
// answer unless the handler read the body to its end.
func (w *response) EnableFullDuplex() error {
	w.fullDuplex = true
	return nil
}

// Header returns the header map the handler fills.
func (w *response) Header() http.Header { return w.header }

// WriteHeader decides the status; later calls are ignored, as net/http
// ignores them (after logging).
func (w *response) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic("http1: invalid WriteHeader code " + strconv.Itoa(code))
	}
	if w.wroteHeader || code < 200 {
		return
	}
	w.wroteHeader = true
	w.status = code
	if cl := fieldValue(w.header, "Content-Length"); cl != "" {
		if n, err := strconv.ParseInt(cl, 10, 64); err == nil && n >= 0 {
			w.contentLength = n
		} else {
			delete(w.header, "Content-Length")
		}
	}
}

// Write holds or sends p as part of the body.
func (w *response) Write(p []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if !bodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	w.written += int64(len(p))
	if w.contentLength >= 0 && w.written > w.contentLength {
		return 0, http.ErrContentLength
	}
	out := &w.c.out
	switch {
	case w.req.Method == http.MethodHead:
		// Nothing is sent; finish declares the length GET would have.
		if n := min(len(p), 512-len(w.sniff)); n > 0 {
			w.sniff = append(w.sniff, p[:n]...)
		}
	case w.sentHeader:
		w.sendBody(p)
	default:
		out.body = append(out.body, p...)
		if len(out.body) > maxHeldBody {
			w.stream()
		}
	}
	if out.err != nil {
		return 0, out.err
	}
	return len(p), nil
}

// stream sends the header in front of the held body when the body has
// outgrown maxHeldBody: with its declared length, else chunked, else
// (HTTP/1.0 has no chunks) ended by closing the connection.
func (w *response) stream() {
	if w.contentLength < 0 {
		w.chunked = w.req.ProtoAtLeast(1, 1)
		w.closeAfter = w.closeAfter || !w.chunked
	}
	out := &w.c.out
	w.sendHeader(out.body)
	if w.chunked {
		out.head = strconv.AppendInt(out.head, int64(len(out.body)), 16)
		out.head = append(out.head, "\r\n"...)
		out.body = append(out.body, "\r\n"...)
	}
}

// finish completes the response once the handler has returned.
func (w *response) finish() {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	out := &w.c.out
	if !w.sentHeader {
		if w.contentLength < 0 && bodyAllowed(w.status) && (w.req.Method != http.MethodHead || w.written > 0) {
			delete(w.header, "Content-Length") // one the handler set that did not parse
			w.length, w.contentLength = w.written, w.written
		}
		first := out.body
		if w.req.Method == http.MethodHead {
			first = w.sniff
		}
		w.sendHeader(first)
	}
	if w.chunked {
		out.send([]byte("0\r\n\r\n"))
	}
	if w.contentLength >= 0 && w.written != w.contentLength && w.req.Method != http.MethodHead && bodyAllowed(w.status) {
		// The client would wait for bytes that never come.
		w.closeAfter = true
	}
}

// sendHeader builds the status line and header in front of the held
// body; first is the body's start, for sniffing a missing Content-Type.
// The header's own fields are named here as canonical keys of its map:
// Header.Set and Del canonicalise their name on every call.
func (w *response) sendHeader(first []byte) {
	w.sentHeader = true
	h := w.header
	if bodyAllowed(w.status) {
		if _, ok := h["Content-Type"]; !ok && len(first) > 0 && fieldValue(h, "Content-Encoding") == "" {
			h["Content-Type"] = []string{http.DetectContentType(first)}
		}
	} else {
		delete(h, "Content-Length")
		w.length = -1
		delete(h, "Transfer-Encoding")
		if w.status == http.StatusNotModified {
			delete(h, "Content-Type")
		}
		w.contentLength = -1
	}
	// The Date the handler did not set is written, not stored: storing it
	// would cost a slice per response.
	date := ""
	if _, ok := h["Date"]; !ok {
		date = httpDate()
	}
	if w.chunked {
		delete(h, "Content-Length")
		w.length = -1
		h["Transfer-Encoding"] = []string{"chunked"}
	} else {
		delete(h, "Transfer-Encoding")
	}
	w.decideConnection()

	out := &w.c.out
	if w.req.ProtoAtLeast(1, 1) {
		out.head = append(out.head, "HTTP/1.1 "...)
	} else {
		out.head = append(out.head, "HTTP/1.0 "...)
	}
	out.head = strconv.AppendInt(out.head, int64(w.status), 10)
	out.head = append(out.head, ' ')
	if text := http.StatusText(w.status); text != "" {
		out.head = append(out.head, text...)
	} else {
		out.head = append(out.head, "status code "...)
		out.head = strconv.AppendInt(out.head, int64(w.status), 10)
	}
	out.head = append(out.head, "\r\n"...)
	out.head = appendHeader(out.head, h, date, w.length)
	out.head = append(out.head, "\r\n"...)
}

// decideConnection settles keep-alive as net/http does: HTTP/1.1 keeps
// the connection unless either side says close or the request's body is
// left unread; HTTP/1.0 only when the client asks and the body's end is
// known. Once a request framed two ways has come on the connection, it
// closes after the answer, as net/http's server does behind
// framing.Server (RFC 9112 section 6.1).
func (w *response) decideConnection() {
	h, req := w.header, w.req
	wants10KeepAlive := req.ProtoMajor == 1 && req.ProtoMinor == 0 && hasToken(fieldValue(req.Header, "Connection"), "keep-alive")
	if wants10KeepAlive && (req.Method == http.MethodHead || w.contentLength >= 0 || !bodyAllowed(w.status)) {
		if _, set := h["Connection"]; !set {
			h["Connection"] = []string{"keep-alive"}
		}
	} else if !req.ProtoAtLeast(1, 1) || req.Close || hasToken(fieldValue(req.Header, "Connection"), "close") {
		w.closeAfter = true
	}
	if fieldValue(h, "Connection") == "close" || w.c.srv.isClosing() || w.c.watch.overflowed.Load() || w.c.r.scan.Conflicted() {
		w.closeAfter = true
	}
	if w.fullDuplex && w.body != nil && !w.body.eof {
		w.closeAfter, w.bodyLeft = true, true
	} else if w.body.settle(req.ContentLength) {
		w.closeAfter, w.bodyLeft = true, true
	}
	if w.closeAfter && !hasToken(fieldValue(h, "Connection"), "close") {
		delete(h, "Connection")
		if req.ProtoAtLeast(1, 1) {
			h["Connection"] = []string{"close"}
		}
	}
}

// sendBody queues body bytes after the header, framed when chunked.
func (w *response) sendBody(p []byte) {
	if len(p) == 0 {
		return
	}
	out := &w.c.out
	if w.chunked {
		w.line = strconv.AppendInt(w.line[:0], int64(len(p)), 16)
		w.line = append(w.line, "\r\n"...)
		out.send(w.line)
		out.send(p)
		out.send([]byte("\r\n"))
		return
	}
	out.send(p)
}

func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

// hasToken reports whether the comma-separated list v holds token,
// case-insensitively.
func hasToken(v, token string) bool {
	for start := 0; start <= len(v); {
		end := start
		for end < len(v) && v[end] != ',' {
			end++
		}
		if equalFoldTrim(v[start:end], token) {
			return true
		}
		start = end + 1
	}
	return false
}

func equalFoldTrim(s, token string) bool {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	if len(s) != len(token) {
		return false
	}
	for i := 0; i < len(s); i++ {
		a, b := s[i], token[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// cachedDate holds the Date header's value for the current second.
var cachedDate atomic.Pointer[dateValue]

type dateValue struct {
	unix int64
	text string
}

func httpDate() string {
	now := time.Now()
	if d := cachedDate.Load(); d != nil && d.unix == now.Unix() {
		return d.text
	}
	d := &dateValue{unix: now.Unix(), text: now.UTC().Format(http.TimeFormat)}
	cachedDate.Store(d)
	return d.text
}
