// Package rawwrite writes to sockets with raw system calls, which keep the
// writing goroutine's processor through the call.
//
// On loopback, write does the receiver's share of the work too: the kernel
// delivers the bytes and wakes the reader, PostgreSQL or an HTTP client on
// the same machine, which often preempts the writer inside the call. Made
// the usual way, the call has then marked its processor as in a system
// call, Go's monitor thread hands that processor to another thread once
// the call has outlasted one of its ticks (20 us), and the writer, when it
// returns, has to find a processor again: two thread wake-ups and a park
// per preempted write. A raw call keeps the processor, so none of that
// happens.
//
// A raw call must not block, and these do not: Go's network poller made
// the sockets non-blocking, so when the socket buffer is full the call
// fails with EAGAIN and the poller waits for room as it always does (the
// write deadline included). While a call runs, its processor runs nothing
// else, as when the goroutine computes for as long: the call copies at most
// a socket buffer's worth, and the other processors steal its queued work.
package rawwrite

import (
	"errors"
	"net"
	"os"
	"syscall"
)

// Writer writes to one TCP or Unix socket with raw system calls.
type Writer struct {
	conn net.Conn
	raw  syscall.RawConn
}

// New returns a Writer for c, or nil where raw writes are not made: on
// systems other than Linux, and for connections other than TCP and Unix
// sockets (a TLS session, say, which must write through its own layer).
func New(c net.Conn) *Writer {
	if !supported {
		return nil
	}
	var sc syscall.Conn
	switch c := c.(type) {
	case *net.TCPConn:
		sc = c
	case *net.UnixConn:
		sc = c
	default:
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return &Writer{conn: c, raw: raw}
}

// Write writes p whole, as net.Conn's Write does: the write deadline
// holds, and a short count comes with an error.
func (w *Writer) Write(p []byte) (int, error) {
	n := 0
	var errno syscall.Errno
	err := w.raw.Write(func(fd uintptr) bool {
		for n < len(p) {
			k, e := write(fd, p[n:])
			switch e {
			case 0:
				n += k
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // wait until there is room
			default:
				errno = e
				return true
			}
		}
		return true
	})
	return n, w.wrap("write", err, errno)
}

// maxIovecs is how many buffers one writev takes; callers write two or
// three, and more go in further calls.
const maxIovecs = 8

// WriteBuffers writes bufs whole, in order, with writev; it consumes bufs
// as net.Buffers.WriteTo does.
func (w *Writer) WriteBuffers(bufs *net.Buffers) (int64, error) {
	var n int64
	var errno syscall.Errno
	var iov [maxIovecs]syscall.Iovec
	err := w.raw.Write(func(fd uintptr) bool {
		for len(*bufs) > 0 {
			k := 0
			for _, b := range *bufs {
				if k == len(iov) {
					break
				}
				if len(b) > 0 {
					iov[k].Base = &b[0]
					iov[k].SetLen(len(b))
					k++
				}
			}
			if k == 0 {
				*bufs = (*bufs)[:0]
				break
			}
			m, e := writev(fd, iov[:k])
			switch e {
			case 0:
				n += int64(m)
				consume(bufs, m)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false
			default:
				errno = e
				return true
			}
		}
		return true
	})
	return n, w.wrap("writev", err, errno)
}

// wrap returns the error net.Conn's Write would: a *net.OpError for a
// failed system call, and for what the poller reports (a deadline, a
// closed connection) its error under the operation "write" rather than
// "raw-write".
func (w *Writer) wrap(call string, err error, errno syscall.Errno) error {
	if err == nil && errno == 0 {
		return nil
	}
	var op *net.OpError
	if errors.As(err, &op) {
		op.Op = "write"
		return op
	}
	if err == nil {
		err = os.NewSyscallError(call, errno)
	}
	return &net.OpError{Op: "write", Net: w.conn.LocalAddr().Network(), Source: w.conn.LocalAddr(), Addr: w.conn.RemoteAddr(), Err: err}
}

// consume drops the first n bytes of bufs.
func consume(bufs *net.Buffers, n int) {
	for len(*bufs) > 0 {
		if n < len((*bufs)[0]) {
			(*bufs)[0] = (*bufs)[0][n:]
			return
		}
		n -= len((*bufs)[0])
		(*bufs)[0] = nil
		*bufs = (*bufs)[1:]
	}
}
