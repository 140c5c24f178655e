//go:build linux

package rawsock

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
)

// Conn is a TCP or Unix socket whose reads and writes are raw system
// calls; everything else is the connection's own.
//
// The state of the read and of the write in progress lives here, and the
// callbacks the poller runs are made once, in New, so a call allocates
// nothing. The locks serialise callers, as net.Conn allows concurrent ones.
type Conn struct {
	net.Conn
	raw syscall.RawConn

	rmu   sync.Mutex
	rbuf  []byte // the read's buffer
	rn    int
	rerr  syscall.Errno
	readf func(fd uintptr) bool

	wmu    sync.Mutex
	wbufs  net.Buffers // what the write has yet to write
	wone   [1][]byte   // backs wbufs for Write
	wn     int64
	wcall  string // the system call that failed, for the error
	werr   syscall.Errno
	iov    [maxIovecs]syscall.Iovec
	writef func(fd uintptr) bool
}

// New returns c with raw reads and writes, or nil where they are not made:
// for connections other than TCP and Unix
// sockets (a TLS session, say, which must go through its own layer).
func New(c net.Conn) *Conn {
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
	rc := &Conn{Conn: c, raw: raw}
	rc.readf, rc.writef = rc.readOnce, rc.writeOnce
	return rc
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
	c.rmu.Lock()
	c.rbuf, c.rn, c.rerr = p, 0, 0
	err := c.raw.Read(c.readf)
	n, errno := c.rn, c.rerr
	c.rbuf = nil
	c.rmu.Unlock()
	if err == nil && errno == 0 && n == 0 {
		return 0, io.EOF
	}
	return n, c.wrap("read", "read", err, errno)
}

// readOnce is the poller's callback for Read: false asks it to wait until
// the socket is readable.
func (c *Conn) readOnce(fd uintptr) bool {
	for {
		k, e := read(fd, c.rbuf)
		switch e {
		case 0:
			c.rn = k
			return true
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			c.rerr = e
			return true
		}
	}
}

// Write writes p whole, as net.Conn's Write does: the write deadline
// holds, and a short count comes with an error.
func (c *Conn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wone[0] = p
	c.wbufs = c.wone[:]
	n, err := c.writeAll()
	return int(n), err
}

// WriteBuffers writes bufs whole, in order, with writev; it consumes bufs
// as net.Buffers.WriteTo does.
func (c *Conn) WriteBuffers(bufs *net.Buffers) (int64, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wbufs = *bufs
	n, err := c.writeAll()
	*bufs = c.wbufs
	return n, err
}

// writeAll writes c.wbufs; the caller holds c.wmu.
func (c *Conn) writeAll() (int64, error) {
	c.wn, c.werr = 0, 0
	err := c.raw.Write(c.writef)
	n, errno, call := c.wn, c.werr, c.wcall
	c.wone[0], c.iov = nil, [maxIovecs]syscall.Iovec{} // keep no buffer alive
	return n, c.wrap("write", call, err, errno)
}

// maxIovecs is how many buffers one writev takes; callers write two or
// three, and more go in further calls.
const maxIovecs = 8

// writeOnce is the poller's callback for writeAll: false asks it to wait
// until there is room.
func (c *Conn) writeOnce(fd uintptr) bool {
	for len(c.wbufs) > 0 {
		k := 0
		var first []byte
		for _, b := range c.wbufs {
			if k == len(c.iov) {
				break
			}
			if len(b) > 0 {
				if k == 0 {
					first = b
				}
				c.iov[k].Base = &b[0]
				c.iov[k].SetLen(len(b))
				k++
			}
		}
		if k == 0 {
			c.wbufs = c.wbufs[:0]
			break
		}
		var m int
		var e syscall.Errno
		if k == 1 {
			c.wcall = "write"
			m, e = write(fd, first)
		} else {
			c.wcall = "writev"
			m, e = writev(fd, c.iov[:k])
		}
		switch e {
		case 0:
			c.wn += int64(m)
			consume(&c.wbufs, m)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			c.werr = e
			return true
		}
	}
	return true
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
