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
	wait.end()
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, apierr.PoolTimeout()
		}
		if ctx.Err() != nil {
			return nil, ErrClientGone
		}
		e.unreached(pool)
		return nil, apierr.ConnectionRefused(connerr.Explain(err))
	}
	e.reached(ctx, pool, conn)
	return conn, nil
}

// waitCtx is the context a wait for a session runs in: it ends at the
// acquisition timeout and carries the request's values. It is recycled,
// timer and channel included, because context.WithTimeout costs a
// request five allocations for a deadline that almost never passes.
//
// It does not end when the request's context does: a client that leaves
// while its request waits for a session leaves the wait to end at the
// timeout or when it gets one, which the transaction then gives back
// unused (runTx). The wait is bounded either way, and a client that
// stayed would have held it as long.
type waitCtx struct {
	values   context.Context
	deadline time.Time
	done     chan struct{}
	timer    *time.Timer
	expired  atomic.Bool
}

var waits = sync.Pool{New: func() any {
	w := &waitCtx{done: make(chan struct{})}
	w.timer = time.AfterFunc(time.Hour, w.expire)
	w.timer.Stop()
	return w
}}

// startWait returns a wait context ending d from now, with ctx's values.
func startWait(ctx context.Context, d time.Duration) *waitCtx {
	w := waits.Get().(*waitCtx)
	w.values = ctx
	w.deadline = time.Now().Add(d)
	w.timer.Reset(d)
	return w
}

func (w *waitCtx) expire() {
	w.expired.Store(true)
	close(w.done)
}

// end stops w's timer. w is recycled unless its deadline passed: its
// channel is closed then, and what waited on it (a session being opened
// for it, a health check) may still hold it.
func (w *waitCtx) end() {
	if w.timer.Stop() {
		w.values = nil
		waits.Put(w)
	}
}

func (w *waitCtx) Deadline() (time.Time, bool) { return w.deadline, true }
func (w *waitCtx) Done() <-chan struct{}       { return w.done }
func (w *waitCtx) Value(key any) any           { return w.values.Value(key) }

func (w *waitCtx) Err() error {
	if w.expired.Load() {
		return context.DeadlineExceeded
	}
	return nil
}
