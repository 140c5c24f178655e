package http1

import (
	"net"
)

// maxHeldOutput is how much of a response is gathered before it is
// written; a larger piece is written with it in one writev.
const maxHeldOutput = 64 << 10

// output is a connection's response bytes not yet written: head, the
// status line and header, goes out before body, which may have been
// gathered before the header was known; both leave in one writev.
type output struct {
	rwc  net.Conn // the connection
	head []byte
	body []byte
	err  error     // the first write error; the connection is then done
	vec  [3][]byte // backs the writev of head, body and a large piece
	bufs net.Buffers
}

// send queues b after what is queued, writing all at once when the
// queue would outgrow maxHeldOutput.
func (o *output) send(b []byte) {
	if len(o.body)+len(b) <= maxHeldOutput {
		o.body = append(o.body, b...)
		return
	}
	o.write(b)
}

// flush writes what is queued.
func (o *output) flush() { o.write(nil) }

func (o *output) write(extra []byte) {
	if extra == nil && len(o.head) > 0 && len(o.body) <= 4<<10 {
		// A small body costs less to copy than a writev.
		o.head, o.body = append(o.head, o.body...), o.body[:0]
	}
	if o.err == nil {
		// bufs is a field, not a variable: WriteTo takes its address,
		// which would move a variable to the heap on every write.
		o.bufs = o.vec[:0]
		for _, b := range [...][]byte{o.head, o.body, extra} {
			if len(b) > 0 {
				o.bufs = append(o.bufs, b)
			}
		}
		switch {
		case len(o.bufs) == 0:
		case len(o.bufs) == 1:
			_, o.err = o.rwc.Write(o.bufs[0])
		default:
			// One writev on a *net.TCPConn or *net.UnixConn, one write
			// per buffer on anything else.
			_, o.err = o.bufs.WriteTo(o.rwc)
		}
		o.bufs = nil
		clear(o.vec[:]) // keep no body alive until the next write
	}
	o.head, o.body = o.head[:0], o.body[:0]
}
