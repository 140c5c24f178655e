package http1

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// requestCtx is a request's context. It ends when the client leaves or
// the request ends, and also runs one function when the client leaves
// (OnLeave): package dbexec's wait for a session, and then the session's
// watch, register there on every request rather than with
// context.AfterFunc, whose registration costs three allocations and a
// lock.
//
// It ends itself rather than embed a context.WithCancel: that would cost
// every request an allocation and a cancellation that almost nothing
// watches. Its done channel is made only when Done is called, as
// context's own is. It implements AfterFunc, so that a context derived
// from it registers there instead of starting a goroutine to wait for
// Done.
type requestCtx struct {
	w *watcher
	// start is when the request's head began to arrive (Started).
	start time.Time
	// ended is set, under mu, once the context ends; Err reads it
	// without the lock.
	ended atomic.Bool
	mu    sync.Mutex
	done  chan struct{} // made by the first Done
	// afters are the functions AfterFunc registered, run when it ends.
	afters []*afterFunc
}

// afterFunc is one function AfterFunc registered, a pointer so that
// its stop finds it.
type afterFunc struct{ f func() }

// closedDone is the Done of a context asked for it only once ended.
var closedDone = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Started reports when the request's head began to arrive, so that
// what times the request (server/observe) need not read the clock again.
func (c *requestCtx) Started() time.Time { return c.start }

// Deadline reports none: a request runs until it ends or its client
// leaves.
func (c *requestCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

// Value holds nothing: the request's context starts empty, as
// context.Background.
func (c *requestCtx) Value(any) any { return nil }

// Done is closed when the context ends.
func (c *requestCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		if c.ended.Load() {
			c.done = closedDone
		} else {
			c.done = make(chan struct{})
		}
	}
	return c.done
}

// Err is context.Canceled once the context has ended, else nil.
func (c *requestCtx) Err() error {
	if c.ended.Load() {
		return context.Canceled
	}
	return nil
}

// end ends the context, closing Done and starting what AfterFunc
// registered; a second call does nothing.
func (c *requestCtx) end() {
	c.mu.Lock()
	if c.ended.Load() {
		c.mu.Unlock()
		return
	}
	c.ended.Store(true)
	if c.done != nil {
		close(c.done)
	}
	afters := c.afters
	c.afters = nil
	c.mu.Unlock()
	for _, a := range afters {
		go a.f()
	}
}

// AfterFunc runs f in a goroutine of its own once the context ends, as
// context.AfterFunc does, which calls it; stop reports whether it kept
// f from running.
func (c *requestCtx) AfterFunc(f func()) (stop func() bool) {
	a := &afterFunc{f: f}
	c.mu.Lock()
	if c.ended.Load() {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	c.afters = append(c.afters, a)
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		i := slices.Index(c.afters, a)
		if i < 0 {
			return false
		}
		c.afters = slices.Delete(c.afters, i, i+1)
		return true
	}
}

// OnLeave has f run, in a goroutine of its own, when the request's client
// leaves, or at once if it has left; until the request ends or StopLeave
// is called. It holds one function: a second OnLeave replaces the first,
// so its users take it in turn (dbexec's wait, then its watch).
func (c *requestCtx) OnLeave(f func()) {
	w := c.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.left {
		go f()
		return
	}
	w.leave = f
}

// StopLeave stops the function OnLeave registered from running, and
// reports whether it did: false once it has run or started.
func (c *requestCtx) StopLeave() bool {
	w := c.w
	w.mu.Lock()
	defer w.mu.Unlock()
	stopped := w.leave != nil
	w.leave = nil
	return stopped
}
