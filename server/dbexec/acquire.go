package dbexec

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/sql/connerr"
)

// acquire takes a session from pool within the acquisition timeout:
// through the primary's shelf (shelf.go), else from pgxpool. Give it back
// with release.
func (e *Executor) acquire(ctx context.Context, pool *pgxpool.Pool) (*pgxpool.Conn, error) {
	var conn *pgxpool.Conn
	var left bool
	var err error
	if ps := e.sessions(pool); ps.shelf != nil {
		conn, left, err = ps.shelf.acquire(ctx, ps, e.AcquireTimeout)
	} else {
		e.acquiring.Add(1)
		wait := startWait(ctx, e.AcquireTimeout)
		conn, err = pool.Acquire(wait)
		e.acquiring.Add(-1)
		left = wait.ended.Load() == waitLeft
		wait.end()
	}
	if err != nil {
		switch {
		case left || ctx.Err() != nil:
			return nil, ErrClientGone
		case errors.Is(err, context.DeadlineExceeded):
			return nil, apierr.PoolTimeout()
		}
		e.unreached(pool)
		return nil, apierr.ConnectionRefused(connerr.Explain(err))
	}
	e.reached(ctx, pool, conn)
	return conn, nil
}

// waitCtx is the context a wait for a session runs in: it ends at the
// acquisition timeout, or when the request's client leaves, and carries
// the request's values. It is recycled, timer and channel included, and
// hears of the client leaving through the request context's hook
// (leaveHook, the one the session's watch uses next), because
// context.WithTimeout costs a request five allocations and the request
// context's lock for a wait that almost never ends early.
//
// Nor is its timer reset and stopped for each wait, as the http1
// watcher's is not for each request: a wait that ends leaves the timer
// running, and the next wait of the recycled context takes it
// over. A fire that finds a wait younger than the timeout sets the timer
// for that wait's deadline; one that finds none lets it rest until the
// next.
type waitCtx struct {
	values   context.Context
	deadline time.Time
	done     chan struct{}
	timer    *time.Timer
	// mu guards inUse, timing and fireAt, and the deadline against the
	// timer: a fire ends only the wait in progress, and only past its
	// deadline.
	mu sync.Mutex
	// inUse is set from startWait to end.
	inUse bool
	// timing is set while the timer is due to fire, at fireAt, or firing.
	timing bool
	fireAt time.Time
	// ended is why done was closed: waitOpen while it is not.
	ended atomic.Int32
	// onLeave closes it for the client leaving, made once; leaving runs
	// it for the request in progress.
	onLeave func()
	leaving leaveWatch
}

// Why a wait's context ended.
const (
	waitOpen int32 = iota
	waitTimedOut
	waitLeft
)

var waits = sync.Pool{New: func() any {
	w := &waitCtx{done: make(chan struct{})}
	w.timer = time.AfterFunc(time.Hour, w.fire)
	w.timer.Stop()
	w.onLeave = func() { w.close(waitLeft) }
	return w
}}

// startWait returns a wait context for a request of context ctx, ending d
// from now or when ctx's client leaves, with ctx's values.
func startWait(ctx context.Context, d time.Duration) *waitCtx {
	w := waits.Get().(*waitCtx)
	w.values = ctx
	w.mu.Lock()
	w.deadline = time.Now().Add(d)
	w.inUse = true
	if !w.timing || w.fireAt.After(w.deadline) {
		w.timing, w.fireAt = true, w.deadline
		w.timer.Reset(d)
	}
	w.mu.Unlock()
	w.leaving.start(ctx, w.onLeave)
	return w
}

// fire runs on the timer: it ends the wait in progress if its deadline
// has passed, sets the timer for it if not, and lets the timer rest when
// no wait is in progress.
func (w *waitCtx) fire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.inUse {
		w.timing = false
		return
	}
	if left := time.Until(w.deadline); left > 0 {
		w.fireAt = w.deadline
		w.timer.Reset(left)
		return
	}
	w.timing = false
	w.close(waitTimedOut)
}

// close ends the wait, for the first reason only.
func (w *waitCtx) close(why int32) {
	if w.ended.CompareAndSwap(waitOpen, why) {
		close(w.done)
	}
}

// end stops what may end w. w is recycled unless it ended or may still
// be ended: its channel is closed then or about to be, and what waited
// on it (a session being opened for it, a health check) may still hold
// it. Once end has marked it out of use, the timer ends it no more.
func (w *waitCtx) end() {
	w.mu.Lock()
	w.inUse = false
	w.mu.Unlock()
	leaveStopped := w.leaving.stop()
	if leaveStopped && w.ended.Load() == waitOpen {
		w.values = nil
		waits.Put(w)
	}
}

func (w *waitCtx) Deadline() (time.Time, bool) { return w.deadline, true }
func (w *waitCtx) Done() <-chan struct{}       { return w.done }
func (w *waitCtx) Value(key any) any           { return w.values.Value(key) }

func (w *waitCtx) Err() error {
	switch w.ended.Load() {
	case waitTimedOut:
		return context.DeadlineExceeded
	case waitLeft:
		return context.Canceled
	}
	return nil
}
