package http1

import (
	"context"
	"math"
	"sync"
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

// watcher cancels a slow request's context when its client goes away.
// net/http starts a goroutine per request for this; here the timer
// starts the read only once a request has run for WatchAfter, so quick
// requests pay for a timer reset and stop instead.
type watcher struct {
	c      *conn
	timer  *time.Timer
	mu     sync.Mutex
	idle   *sync.Cond // signalled when a read ends
	state  int
	cancel context.CancelFunc
	abort  bool
}

func (w *watcher) init(c *conn) {
	w.c = c
	w.idle = sync.NewCond(&w.mu)
	w.timer = time.AfterFunc(math.MaxInt64, w.read)
	w.timer.Stop()
}

// arm starts the timer for the request whose context cancel ends. Only
// once the request's body is read to its end: the read takes the
// connection's next bytes.
func (w *watcher) arm(cancel context.CancelFunc) {
	if w.c.br.Buffered() > 0 {
		// The client has sent more already: it is there, and those
		// bytes must stay for the next request.
		return
	}
	w.mu.Lock()
	w.state = watchArmed
	w.cancel = cancel
	w.mu.Unlock()
	w.timer.Reset(w.c.srv.watchAfter())
}

// read runs on the timer's goroutine: it waits for a byte or an error
// from the client and cancels the request on an error, the client gone.
func (w *watcher) read() {
	w.mu.Lock()
	if w.state != watchArmed {
		w.mu.Unlock()
		return
	}
	w.state = watchReading
	cancel := w.cancel
	w.c.rwc.SetReadDeadline(time.Time{})
	w.mu.Unlock()

	r := &w.c.r
	n, err := w.c.io.Read(r.byteBuf[:])

	w.mu.Lock()
	if n == 1 {
		r.hasByte = true
	}
	if err != nil && !w.abort {
		cancel()
	}
	w.state = watchIdle
	w.idle.Broadcast()
	w.mu.Unlock()
}

// stop ends the watch of the current request, waiting for a read in
// progress to return so that the connection's reader is free again.
func (w *watcher) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch w.state {
	case watchArmed:
		w.timer.Stop() // if it fired, read finds the state idle
	case watchReading:
		w.abort = true
		w.c.rwc.SetReadDeadline(aLongTimeAgo)
		for w.state == watchReading {
			w.idle.Wait()
		}
		w.abort = false
	}
	w.state = watchIdle
	w.cancel = nil
}
