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

// acquire takes a session from pool within the acquisition timeout.
func (e *Executor) acquire(ctx context.Context, pool *pgxpool.Pool) (*pgxpool.Conn, error) {
	wait := startWait(ctx, e.AcquireTimeout)
	conn, err := pool.Acquire(wait)
	left := wait.ended.Load() == waitLeft
	wait.end()
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
type waitCtx struct {
	values   context.Context
	deadline time.Time
	done     chan struct{}
	timer    *time.Timer
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
	w.timer = time.AfterFunc(time.Hour, func() { w.close(waitTimedOut) })
	w.timer.Stop()
	w.onLeave = func() { w.close(waitLeft) }
	return w
}}

// startWait returns a wait context for a request of context ctx, ending d
// from now or when ctx's client leaves, with ctx's values.
func startWait(ctx context.Context, d time.Duration) *waitCtx {
	w := waits.Get().(*waitCtx)
	w.values = ctx
	w.deadline = time.Now().Add(d)
	w.timer.Reset(d)
	w.leaving.start(ctx, w.onLeave)
	return w
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
// it.
func (w *waitCtx) end() {
	timerStopped := w.timer.Stop()
	leaveStopped := w.leaving.stop()
	if timerStopped && leaveStopped && w.ended.Load() == waitOpen {
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
