package stream

import (
	"errors"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/svc-dev/svc/server/request"
)

// A streamed answer holds its database session while its client reads
// it. Its chunks are written on a goroutine of its own, so that the
// request, which reads the rows, sees how far its client lags behind
// PostgreSQL: a chunk the writer has not taken within lagGrace marks the
// client slow, and a slow client
// must hold one of the sessions slow clients may hold (half of db-pool,
// Settings.Streams) or have its answer cut. Fast clients, however many,
// need none; slow ones, however many, leave the other half of the pool
// to everyone else. A chunk not written within server-stream-send-timeout
// cuts the answer too.

// lagGrace is how far a client may lag behind PostgreSQL before it holds
// one of the sessions slow clients may hold: long enough for a client on
// a slow link to take a chunk, and for the sockets' buffers to even out
// a pause; short, since until then a slow client holds a session of the
// other half.
const lagGrace = 500 * time.Millisecond

// writer writes one streamed answer's chunks.
type writer struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	// chunks are the chunks to write: one waits while one is written.
	chunks chan []byte
	// free are chunks written, to fill again.
	free chan []byte
	// done closes once the writer has stopped, after chunks closed.
	done chan struct{}
	// failed is set once a write failed; every later chunk is dropped.
	failed atomic.Bool
	// slow is set when a write ran out of its time.
	slow atomic.Bool
}

// ErrTooSlow is a streamed answer's client lagging behind past what it
// may: the answer is cut.
var ErrTooSlow = errors.New("the client reads the streamed answer too slowly")

// startWriter starts the writer of an answer whose header w has sent.
func startWriter(w http.ResponseWriter, timeout time.Duration) *writer {
	sw := &writer{w: w, rc: http.NewResponseController(w), timeout: timeout,
		chunks: make(chan []byte, 1), free: make(chan []byte, 3), done: make(chan struct{})}
	go sw.run()
	return sw
}

func (sw *writer) run() {
	defer close(sw.done)
	for c := range sw.chunks {
		if !sw.failed.Load() {
			sw.rc.SetWriteDeadline(time.Now().Add(sw.timeout))
			if _, err := sw.w.Write(c); err != nil {
				sw.slow.Store(request.IsTimeout(err))
				sw.failed.Store(true)
			}
		}
		select {
		case sw.free <- c[:0]:
		default:
		}
	}
}

// buffer returns an empty chunk to fill: one written, or a new one.
func (sw *writer) buffer() []byte {
	select {
	case b := <-sw.free:
		return b
	default:
		return make([]byte, 0, Chunk)
	}
}

// send hands chunk to the writer. When the writer has not taken it
// within lagGrace, lagging decides whether the
// client may lag on (it holds, or takes, a slow client's session); if
// not, or if the writer still has not taken it within the send timeout,
// send gives up with ErrTooSlow.
func (sw *writer) send(chunk []byte, lagging func() bool) error {
	select {
	case sw.chunks <- chunk:
		return nil
	default:
	}
	t := time.NewTimer(lagGrace)
	defer t.Stop()
	select {
	case sw.chunks <- chunk:
		return nil
	case <-t.C:
	}
	if !lagging() {
		return ErrTooSlow
	}
	t.Reset(sw.timeout)
	select {
	case sw.chunks <- chunk:
		return nil
	case <-t.C:
		sw.slow.Store(true)
		return ErrTooSlow
	}
}

// close ends the writer once its chunks are written (or dropped), and
// reports whether every one was written.
func (sw *writer) close() bool {
	close(sw.chunks)
	<-sw.done
	return !sw.failed.Load()
}
