package http1

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// A connection is idle while it waits for a request, active while it
// reads and serves one; Shutdown closes only idle ones.
const (
	stateIdle int32 = iota
	stateActive
	stateClosed
)

// maxDrainBytes is how much of a body the handler left unread is read
// and dropped to keep the connection; past it the connection closes, as
// net/http does.
const maxDrainBytes = 256 << 10

// conn serves the requests of one connection, one after another.
type conn struct {
	srv    *Server
	rwc    net.Conn
	remote string // the client's address, for Request.RemoteAddr
	r      connReader
	br     *bufio.Reader
	out    output
	state  atomic.Int32
	res    response
	body   requestBody
	watch  watcher
	// head and fixed are the request and body readRequest parses into
	// when it parses the head itself; serveRequest hands the handler a
	// copy of head.
	head  http.Request
	fixed fixedBody
	// parts is what readRequest's parse of head allocated, whose context
	// the request runs in; nil for a head net/http parsed.
	parts *headParts
	// writeDeadline is set while a write deadline may be in force: one
	// the server or a handler set during a request, cleared after it.
	// Without server-write-timeout, and unless a handler sets one, a
	// request then costs no write deadline to set and clear.
	writeDeadline bool
	// readDeadline is the read deadline in force, as the connection's
	// goroutine last set it through setReadDeadline, or the watcher
	// under its lock (see readDeadlineAfter).
	readDeadline time.Time
}

func newConn(s *Server, rwc net.Conn) *conn {
	c := &conn{srv: s, rwc: rwc}
	if ra := rwc.RemoteAddr(); ra != nil {
		// A Unix socket's client may have no address.
		c.remote = ra.String()
	}
	c.r.rwc = rwc
	c.out.rwc = rwc
	c.r.remain = unlimited
	c.br = bufio.NewReaderSize(&c.r, 4<<10)
	c.res.c = c
	c.res.header = make(http.Header, 8)
	c.watch.init(c)
	return c
}

// serve runs the connection's request loop until the client or the
// server ends it.
func (c *conn) serve() {
	defer c.srv.forget(c)
	defer c.rwc.Close()
	defer func() {
		if v := recover(); v != nil && v != http.ErrAbortHandler && c.srv.Log != nil {
			c.srv.Log.Error("http: panic serving request", "remote", c.remote,
				"panic", v, "stack", string(debug.Stack()))
		}
		c.watch.stop()
	}()
	for first := true; ; first = false {
		if !c.awaitRequest(first) {
			return
		}
		t0 := time.Now()
		req, err := c.readRequest(first, t0)
		if err != nil {
			c.refuse(err)
			return
		}
		c.r.remain = unlimited
		if status, msg := checkRequest(req, req == &c.head); status != 0 {
			line := strconv.Itoa(status) + " " + http.StatusText(status) + ": " + msg
			c.writeRaw(line, line)
			return
		}
		if req.Body != http.NoBody {
			// The read timeout bounds the body's reading. Without a body
			// nothing is read until the next request, whose wait sets its
			// own deadline (awaitRequest, or readRequest for a head not yet
			// whole), and the watcher clears the deadline before it reads.
			c.readDeadlineAfter(t0, c.srv.ReadTimeout)
		}
		if c.srv.WriteTimeout > 0 {
			c.rwc.SetWriteDeadline(time.Now().Add(c.srv.WriteTimeout))
			c.writeDeadline = true
		}
		keep := c.serveRequest(req, t0)
		c.head = http.Request{} // an idle connection holds no request
		if !keep {
			return
		}
		if c.writeDeadline {
			c.rwc.SetWriteDeadline(time.Time{})
			c.writeDeadline = false
		}
	}
}

// readDeadlineAfter has reads time out d after t (none when d is zero),
// or up to deadlineSlack(d) later: a deadline in force that falls in that
// span is left as it is. Setting one costs the runtime's timer lock and
// bookkeeping, which perf found among the larger costs of a quick
// request's way; with the slack, a busy connection moves its deadline
// about once a second rather than once or twice a request.
func (c *conn) readDeadlineAfter(t time.Time, d time.Duration) {
	if d <= 0 {
		if !c.readDeadline.IsZero() {
			c.setReadDeadline(time.Time{})
		}
		return
	}
	want, slack := t.Add(d), deadlineSlack(d)
	if cur := c.readDeadline; !cur.Before(want) && cur.Sub(want) <= slack {
		return
	}
	c.setReadDeadline(want.Add(slack))
}

// deadlineSlack is how much later than asked readDeadlineAfter may leave
// a read deadline: a sixteenth of the timeout, at most a second.
func deadlineSlack(d time.Duration) time.Duration { return min(d/16, time.Second) }

// setReadDeadline sets the connection's read deadline, and records it.
func (c *conn) setReadDeadline(t time.Time) error {
	c.readDeadline = t
	return c.rwc.SetReadDeadline(t)
}

// awaitRequest waits, idle, for the first byte of the next request. The
// header limit starts here, so that the bytes this wait buffers count.
func (c *conn) awaitRequest(first bool) bool {
	c.state.Store(stateIdle)
	if c.srv.isClosing() {
		return false
	}
	c.r.remain = c.srv.maxHeaderBytes() + 4096
	if c.br.Buffered() == 0 {
		d := c.srv.idleTimeout()
		if first {
			d = c.srv.readHeaderTimeout()
		}
		start := time.Now()
		c.waitDeadline(start, d)
		for {
			_, err := c.br.Peek(1)
			if err == nil {
				break
			}
			// The deadline an earlier request left has passed; the
			// wait's own is later.
			if d <= 0 || !errors.Is(err, os.ErrDeadlineExceeded) || !c.readDeadline.Before(start.Add(d)) {
				return false
			}
			c.readDeadlineAfter(start, d)
		}
	}
	return c.state.CompareAndSwap(stateIdle, stateActive)
}

// waitDeadline sets the deadline of an idle wait that began at start and
// may last d, as readDeadlineAfter would, but leaves a deadline still
// ahead that falls before the wait's own: awaitRequest moves it only if
// the wait reaches it. A request with a body has its reads time out at
// the read timeout (server-read-timeout), sooner than the idle timeout
// (server-idle-timeout) by default, so moving it out for each wait would
// cost two moves a request, back and forth; left, the next request's
// body finds it within the slack.
func (c *conn) waitDeadline(start time.Time, d time.Duration) {
	if cur := c.readDeadline; d > 0 && cur.After(start) && cur.Before(start.Add(d)) {
		return
	}
	c.readDeadlineAfter(start, d)
}

// serveRequest runs the handler for req, whose head began at t0, and
// sends its response. It reports whether the connection may carry
// another request.
func (c *conn) serveRequest(req *http.Request, t0 time.Time) bool {
	w := &c.res
	expect := fieldValue(req.Header, "Expect")
	continues := hasToken(expect, "100-continue")
	if expect != "" && !continues {
		w.reset(req, nil)
		w.header.Set("Connection", "close")
		w.WriteHeader(http.StatusExpectationFailed)
		w.finish()
		c.out.flush()
		return false
	}
	var ctx *requestCtx
	if c.parts != nil {
		ctx, c.parts = &c.parts.ctx, nil
	} else {
		ctx = new(requestCtx)
	}
	ctx.w, ctx.start = &c.watch, t0
	defer ctx.end()
	req = req.WithContext(ctx)
	req.RemoteAddr = c.remote
	var body *requestBody
	if req.Body == http.NoBody {
		c.watch.arm(ctx, t0)
	} else {
		body = &c.body
		*body = requestBody{rc: req.Body, c: c, ctx: ctx,
			expect: continues && req.ProtoAtLeast(1, 1) && req.ContentLength != 0}
		req.Body = body
	}
	w.reset(req, body)
	handler := c.srv.Handler
	if handler == nil {
		handler = http.DefaultServeMux
	}
	if req.RequestURI == "*" && req.Method == http.MethodOptions {
		handler = http.HandlerFunc(globalOptions)
	}
	handler.ServeHTTP(w, req)
	c.watch.stop()
	if ctx.Err() != nil && !w.wroteHeader {
		// The watcher cancelled the request: its client left, and the
		// handler had nothing to say. net/http would answer 200 with an
		// empty body, a success nothing earned (the request's work was
		// cancelled); a client that only half-closed would read it.
		// Nothing is sent and the connection closes.
		w.release()
		return false
	}
	ctx.end()
	w.finish()
	c.out.flush()
	keep := !w.closeAfter && c.out.err == nil && !c.srv.isClosing() && !c.watch.overflowed.Load()
	if w.bodyLeft {
		// Let the client read the answer before the unread body makes
		// the kernel reset the connection.
		c.closeWriteAndWait()
	}
	w.release()
	return keep
}

// globalOptions answers "OPTIONS *" as net/http's server does.
func globalOptions(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Length", "0")
	if r.ContentLength != 0 {
		io.Copy(io.Discard, io.LimitReader(r.Body, 4<<10))
	}
}

// rstAvoidanceDelay is how long a connection closed with input unread
// stays half open, so that the client reads the answer before the reset
// the unread input causes; net/http waits as long.
const rstAvoidanceDelay = 500 * time.Millisecond

func (c *conn) closeWriteAndWait() {
	if cw, ok := c.rwc.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		time.Sleep(rstAvoidanceDelay)
	}
}

// refuse answers a request that could not be read, as net/http does:
// nothing for a connection that broke or timed out, 431 for headers
// over the limit, 501 for a transfer coding it does not know or for more
// than one Transfer-Encoding line (net/http's errors for both are
// unexported, so their text tells them), else 400.
func (c *conn) refuse(err error) {
	switch {
	case c.r.remain <= 0:
		const line = "431 Request Header Fields Too Large"
		c.writeRaw(line, line)
		c.closeWriteAndWait()
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), isReadError(err):
	case strings.HasPrefix(err.Error(), "unsupported transfer encoding"),
		strings.HasPrefix(err.Error(), "too many transfer encodings"):
		c.writeRaw("501 Not Implemented", "Unsupported transfer encoding")
	default:
		const line = "400 Bad Request"
		c.writeRaw(line, line)
	}
}

// isReadError reports whether err is the connection failing or timing
// out under a read, when there is no one left to answer. Only that: a
// request target that does not parse fails with a *url.Error, which is a
// net.Error too, and is answered 400 as net/http answers it.
func isReadError(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "read"
}

// writeRaw sends a plain-text answer to a request the handler never
// sees; the connection then closes.
func (c *conn) writeRaw(statusLine, body string) {
	c.out.body = append(c.out.body, "HTTP/1.1 "+statusLine+"\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"+body...)
	c.out.flush()
}

// closeIfIdle closes the connection if it is waiting for a request.
func (c *conn) closeIfIdle() {
	if c.state.CompareAndSwap(stateIdle, stateClosed) {
		c.rwc.Close()
	}
}

func leadingCRLF(b []byte) int {
	n := 0
	for _, ch := range b {
		if ch != '\r' && ch != '\n' {
			break
		}
		n++
	}
	return n
}

func (s *Server) readHeaderTimeout() time.Duration {
	if s.ReadHeaderTimeout > 0 {
		return s.ReadHeaderTimeout
	}
	return s.ReadTimeout
}

func (s *Server) idleTimeout() time.Duration {
	if s.IdleTimeout > 0 {
		return s.IdleTimeout
	}
	return s.ReadTimeout
}
