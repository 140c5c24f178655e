// Package rawsock reads and writes sockets, and sets their options, with
// raw system calls, which neither hand the goroutine's processor away nor
// wake Go's monitor thread.
//
// A system call made the usual way marks its processor as in a system
// call. Two costs follow, both measured on SVC's loopback traffic:
//
//   - On loopback, write does the receiver's share of the work too: the
//     kernel delivers the bytes and wakes the reader (PostgreSQL, an HTTP
//     client), which often preempts the writer inside the call. Once the
//     call has outlasted one of sysmon's ticks (20 us), sysmon hands the
//     processor to another thread, and the writer must find one again when
//     it returns: two thread wake-ups and a park per preempted write.
//   - When every processor has been idle, sysmon sleeps until the next
//     system call wakes it, and then polls every 20 us for a millisecond
//     or more. In a process that idles between requests, as SVC does on
//     PostgreSQL-bound workloads, that was a fifth of its CPU.
//
// A raw call does neither. It must not block, and these do not: Go's
// network poller made the sockets non-blocking, so a read with nothing to
// read, or a write with the socket buffer full, fails with EAGAIN, and the
// poller waits as it always does, deadlines included. While a call runs,
// its processor runs nothing else, as when the goroutine computes for as
// long: a call copies at most a socket buffer's worth, and the other
// processors steal its queued work. A sleeping sysmon still wakes for the
// next timer (connections have deadlines), and then preempts a goroutine
// that has run for over 10 ms, as it would have.
package rawsock

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// Conn is a TCP or Unix socket whose reads and writes are raw system
// calls; everything else is the connection's own.
type Conn struct {
	net.Conn
	raw syscall.RawConn
}

// New returns c with raw reads and writes, or nil where they are not made:
// on systems other than Linux, and for connections other than TCP and Unix
// sockets (a TLS session, say, which must go through its own layer).
func New(c net.Conn) *Conn {
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
	return &Conn{Conn: c, raw: raw}
}

// Wrap returns New(c), or c itself where New returns nil.
func Wrap(c net.Conn) net.Conn {
	if rc := New(c); rc != nil {
		return rc
	}
	return c
}

// Read reads into p what has arrived, waiting until something has, as
// net.Conn's Read does: the read deadline holds, and the end of the
// stream is io.EOF.
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n := 0
	var errno syscall.Errno
	err := c.raw.Read(func(fd uintptr) bool {
		for {
			k, e := read(fd, p)
			switch e {
			case 0:
				n = k
				return true
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // wait until something arrives
			default:
				errno = e
				return true
			}
		}
	})
	if err == nil && errno == 0 && n == 0 {
		return 0, io.EOF
	}
	return n, c.wrap("read", "read", err, errno)
}

// Write writes p whole, as net.Conn's Write does: the write deadline
// holds, and a short count comes with an error.
func (c *Conn) Write(p []byte) (int, error) {
	n := 0
	var errno syscall.Errno
	err := c.raw.Write(func(fd uintptr) bool {
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
	return n, c.wrap("write", "write", err, errno)
}

// maxIovecs is how many buffers one writev takes; callers write two or
// three, and more go in further calls.
const maxIovecs = 8

// WriteBuffers writes bufs whole, in order, with writev; it consumes bufs
// as net.Buffers.WriteTo does.
func (c *Conn) WriteBuffers(bufs *net.Buffers) (int64, error) {
	var n int64
	var errno syscall.Errno
	var iov [maxIovecs]syscall.Iovec
	err := c.raw.Write(func(fd uintptr) bool {
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
	return n, c.wrap("write", "writev", err, errno)
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

// wrap returns the error net.Conn's Read or Write (op) would: a
// *net.OpError for a failed system call, and for what the poller reports
// (a deadline, a closed connection) its error under op rather than
// "raw-read" or "raw-write".
func (c *Conn) wrap(op, call string, err error, errno syscall.Errno) error {
	if err == nil && errno == 0 {
		return nil
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		oe.Op = op
		return oe
	}
	if err == nil {
		err = os.NewSyscallError(call, errno)
	}
	return &net.OpError{Op: op, Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
