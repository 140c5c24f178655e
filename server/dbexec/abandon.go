package dbexec

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// A client may leave while PostgreSQL works on its request. The statement
// must then stop: a write nobody waits for must not commit, and a backend
// working for nobody holds a connection slot of the server. Closing the
// connection at once, as pgx does when a context ends, gives its place in
// the pool to a new session while the old backend may still run: it stops
// at its next check for interrupts, which a JIT compile or a cancel that
// arrived between two messages put off for seconds or minutes, and
// abandoned requests then pile up backends past db-pool.
//
// So the request's statements keep running on the session, unaware of the
// client, while a watch asks PostgreSQL to cancel them until they answer;
// the session is then ended, and given back to the pool closed, only once
// PostgreSQL has closed its end: its backend has stopped. The wait is
// bounded by db-pool-cancel-timeout from the client leaving; past it the
// session is closed without that, its place freed, and a warning logged.

// Cancel requests are repeated, the interval doubling from cancelRetry up
// to cancelRetryMax, until the request's statements answer. PostgreSQL
// drops a cancel request that reaches the backend while no statement runs,
// as when the client leaves just as the statements go out; the next one
// finds the statement running. Each costs PostgreSQL a process, so a
// backend that ignores them gets a handful, not one every few milliseconds.
const (
	cancelRetry    = 100 * time.Millisecond
	cancelRetryMax = 2 * time.Second
)

// clientWatch stops the work of a request on one session when its client
// leaves. A session has one, made on its first request and used by each
// request after it until a client leaves, after which the session is not
// used again: a watch costs a request no allocation of its own.
type clientWatch struct {
	pc      *pgconn.PgConn
	onLeave func()        // w.leave, made once
	leaving leaveWatch    // runs onLeave for the request in progress
	wait    time.Duration // db-pool-cancel-timeout of the request in progress

	// Once gone is closed, the client has left and deadline is when the
	// wait runs out. answered is closed once the request's statements have
	// answered (or failed), quiet once leave sends no more cancel requests.
	deadline              time.Time
	gone, answered, quiet chan struct{}
}

// watchClient starts watching ctx, the context of a request about to run
// on pc, of session state s, for its client leaving (see leave); settle
// ends the watch. A context that cannot end needs no watch: nil.
func watchClient(ctx context.Context, pc *pgconn.PgConn, s *sessionState, wait time.Duration) *clientWatch {
	if _, hooked := ctx.(leaveHook); !hooked && ctx.Done() == nil {
		return nil
	}
	w := s.watch
	if w == nil {
		w = &clientWatch{pc: pc, gone: make(chan struct{}), answered: make(chan struct{}), quiet: make(chan struct{})}
		w.onLeave = w.leave
		s.watch = w
	}
	w.wait = wait
	w.leaving.start(ctx, w.onLeave)
	return w
}

// leaveHook is a request context that runs a function when the request's
// client leaves, as context.AfterFunc does when the context ends, at less
// cost: the HTTP server's (package http1). StopLeave is AfterFunc's stop.
type leaveHook interface {
	OnLeave(f func())
	StopLeave() bool
}

// leaveWatch runs a function when a request's client leaves: through its
// context's leaveHook when it has one, otherwise once the context ends
// (context.AfterFunc). The wait for a session and the session's watch
// each hold one, in turn.
type leaveWatch struct {
	hook      leaveHook
	afterFunc func() bool
}

// start has f run when ctx's client leaves, until stop.
func (l *leaveWatch) start(ctx context.Context, f func()) {
	if hook, ok := ctx.(leaveHook); ok {
		l.hook = hook
		hook.OnLeave(f)
		return
	}
	l.afterFunc = context.AfterFunc(ctx, f)
}

// stop ends the watch and reports whether it stopped f from running:
// false once f has run or started, or when nothing was started. The
// watch then holds nothing of the request.
func (l *leaveWatch) stop() bool {
	stopped := false
	switch {
	case l.hook != nil:
		stopped = l.hook.StopLeave()
	case l.afterFunc != nil:
		stopped = l.afterFunc()
	}
	*l = leaveWatch{}
	return stopped
}

// stop ends the watch of the request in progress, and reports whether it
// stopped leave from running (leaveWatch.stop).
func (w *clientWatch) stop() bool { return w.leaving.stop() }

// clientGone treats a row function's ErrClientGone (the client cannot be
// written to, though its context has not ended) as the client leaving:
// the request's statements on pc are cancelled and the session settled
// as for a context that ended (leave), so that a large result nobody
// reads is not read to its end.
func clientGone(pc *pgconn.PgConn, err error) {
	if !errors.Is(err, ErrClientGone) {
		return
	}
	if w := sessionOf(pc).watch; w != nil && w.stop() {
		go w.leave()
	}
}

// leave runs when the request's client has left. The session's reads and
// writes, the request's own, end by the deadline; until the request's
// statements answer, PostgreSQL is asked to cancel them.
func (w *clientWatch) leave() {
	w.deadline = time.Now().Add(w.wait)
	w.pc.Conn().SetDeadline(w.deadline)
	close(w.gone)
	defer close(w.quiet)
	for delay := cancelRetry; ; delay = min(2*delay, cancelRetryMax) {
		cancelStatement(w.pc, w.deadline)
		left := time.Until(w.deadline)
		if left <= 0 {
			return
		}
		t := time.NewTimer(min(delay, left))
		select {
		case <-w.answered:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// settle ends the watch once the request's statements have answered or
// failed, and reports whether the client left. The session is then
// closed, once its backend has stopped or the wait has run out (which is
// logged on log, when not nil), and must not be used again; the caller
// gives it back to the pool, which drops it and may open another.
func (w *clientWatch) settle(log *slog.Logger) bool {
	if w == nil || w.stop() {
		return false
	}
	<-w.gone
	close(w.answered)
	<-w.quiet
	if !w.endSession() && log != nil {
		log.Warn("a request's client left and its database session did not stop within db-pool-cancel-timeout; "+
			"the session is closed and its place in the pool given back while its backend may still run",
			"pid", w.pc.PID(), "db-pool-cancel-timeout", w.wait)
	}
	return true
}

// endSession closes the session of a request whose client left, now that
// its statements have answered or the wait has run out, and reports
// whether PostgreSQL closed the connection before the deadline: the
// backend has then stopped.
func (w *clientWatch) endSession() bool {
	pc := w.pc
	if pc.IsClosed() {
		// Closed on an error from the connection. Before the deadline, the
		// server closed it (its end of the socket, or a FATAL error before
		// it does), and pgx reads on until it sees the end; after it, the
		// deadline ended the reads, and closing the socket ends pgx's own
		// wait for the server, which would hold the place in the pool on.
		if left := time.Until(w.deadline); left > 0 {
			t := time.NewTimer(left)
			defer t.Stop()
			select {
			case <-pc.CleanupDone():
				return true
			case <-t.C:
			}
		}
		pc.Conn().Close()
		return false
	}
	// In step with the server: the backend waits for the next message,
	// and ends on Terminate, closing its end.
	pc.Frontend().Send(&pgproto3.Terminate{})
	err := pc.Frontend().Flush()
	if err == nil {
		_, err = io.Copy(io.Discard, pc.Conn())
	}
	discard(pc)
	var ne net.Error
	return err == nil || !(errors.As(err, &ne) && ne.Timeout())
}

// cancelStatement asks PostgreSQL, by the deadline, to cancel what pc's
// session runs.
func cancelStatement(pc *pgconn.PgConn, deadline time.Time) {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	pc.CancelRequest(ctx)
}
