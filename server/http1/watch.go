package http1

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// aLongTimeAgo is a read deadline that wakes a blocked read at once.
var aLongTimeAgo = time.Unix(1, 0)

// Watcher states: idle (no request watched), armed (the timer runs),
// reading (a read waits on the connection for the client to leave).
const (
	watchIdle = iota
	watchArmed
	watchReading
)

// maxReadAhead bounds what the watcher holds of what a client sends while
// its request runs (pipelined requests, most often). Past it the watcher
// drops what it read and keeps reading, so that it still sees the client
// leave; the connection then closes after the answer, and the client sends
// the requests it had no answer to again, as it must be ready to.
const maxReadAhead = 64 << 10

// watcher cancels a slow request's context when its client goes away.
// net/http starts a goroutine per request for this; here the timer
// starts the read only once a request has run for WatchAfter. The timer
// is not stopped when a request ends, nor reset when the next begins: it
// fires at most once per WatchAfter, and a request it finds younger than
// that has it fire again when the request is old enough, so the requests
// of a busy connection cost no timer work of their own (a reset and a
// stop each, and the runtime's clean-up of the stopped timers, were
// among the larger costs perf found on a quick request's way). A fire
// that finds the connection idle lets the timer rest until the next
// request. The read takes whatever the client sends until
// it leaves or the request ends, and keeps it for the requests that
// follow: whether bytes are buffered already (net/http does not watch
// then) or arrive during the request, a client that leaves is seen leave.
type watcher struct {
	c     *conn
	timer *time.Timer
	mu    sync.Mutex
	idle  *sync.Cond // signalled when a read ends
	state int
	// timing is set while the timer is due to fire, or firing: arm
	// starts it only when it is not.
	timing bool
	// since is when the armed request's watch began.
	since time.Time
	ctx   *requestCtx // the armed request's, ended when its client leaves
	abort bool
	// leave is the function to run when the request's client leaves
	// (requestCtx.OnLeave), left that the client did.
	leave func()
	left  bool
	// overflowed is set once the watcher dropped bytes past
	// maxReadAhead: the connection cannot carry another request.
	overflowed atomic.Bool
}

func (w *watcher) init(c *conn) {
	w.c = c
	w.idle = sync.NewCond(&w.mu)
	w.timer = time.AfterFunc(math.MaxInt64, w.read)
	w.timer.Stop()
}

// arm watches the request of context ctx, as having run since then,
// starting the timer unless it runs already. Only once the
// request's body is read to its end: the read takes the connection's
// next bytes.
func (w *watcher) arm(ctx *requestCtx, since time.Time) {
	w.mu.Lock()
	w.state = watchArmed
	w.ctx = ctx
	w.since = since
	if !w.timing {
		w.timing = true
		w.timer.Reset(w.c.srv.watchAfter())
	}
	w.mu.Unlock()
}

// read runs on the timer's goroutine: once the armed request has run for
// WatchAfter, it reads what the client sends until the read fails, and
// cancels the request when it fails on its own, the client gone, rather
// than because stop ended the watch.
func (w *watcher) read() {
	w.mu.Lock()
	if w.state != watchArmed {
		// No request is watched: the timer rests until arm.
		w.timing = false
		w.mu.Unlock()
		return
	}
	if left := w.c.srv.watchAfter() - time.Since(w.since); left > 0 {
		// A request armed since the timer was set: it fires again
		// when that one is old enough.
		w.timer.Reset(left)
		w.mu.Unlock()
		return
	}
	w.timing = false
	w.state = watchReading
	ctx := w.ctx
	w.c.setReadDeadline(time.Time{})
	w.mu.Unlock()

	r := &w.c.r
	var err error
	for err == nil {
		w.makeRoom(r)
		var n int
		n, err = w.c.rwc.Read(r.ahead[len(r.ahead):cap(r.ahead)])
		r.ahead = r.ahead[:len(r.ahead)+n]
	}

	w.mu.Lock()
	if !w.abort {
		ctx.end()
		w.left = true
		if leave := w.leave; leave != nil {
			w.leave = nil
			go leave()
		}
	}
	w.state = watchIdle
	w.idle.Broadcast()
	w.mu.Unlock()
}

// makeRoom readies r.ahead for the next read: it moves the bytes still to
// be served to its start, grows it up to maxReadAhead, and past that
// drops what it holds (see maxReadAhead).
func (w *watcher) makeRoom(r *connReader) {
	const minRead = 512
	if cap(r.ahead)-len(r.ahead) >= minRead {
		return
	}
	if r.aheadOff > 0 {
		n := copy(r.ahead, r.ahead[r.aheadOff:])
		r.ahead, r.aheadOff = r.ahead[:n], 0
		if cap(r.ahead)-n >= minRead {
			return
		}
	}
	if len(r.ahead)+minRead > maxReadAhead {
		w.overflowed.Store(true)
		r.ahead = r.ahead[:0]
		return
	}
	r.ahead = slices.Grow(r.ahead, min(max(2*cap(r.ahead), 2*minRead), maxReadAhead)-len(r.ahead))
}

// stop ends the watch of the current request, waiting for a read in
// progress to return so that the connection's reader is free again.
func (w *watcher) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch w.state {
	case watchArmed:
		// The timer runs on (see watcher): if it fires before the next
		// request, read finds the watcher idle.
	case watchReading:
		w.abort = true
		w.c.setReadDeadline(aLongTimeAgo)
		for w.state == watchReading {
			w.idle.Wait()
		}
		w.abort = false
	}
	w.state = watchIdle
	w.ctx = nil
	w.leave, w.left = nil, false
}
