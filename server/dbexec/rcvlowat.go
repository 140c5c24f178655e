package dbexec

import (
	"context"
	"encoding/binary"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/svc-dev/svc/server/rawsock"
)

// Large response bodies arrive from PostgreSQL in pieces of its 8 KiB
// output buffer. Read as they come, a 50 KB body costs six wake-ups of the
// reading goroutine, most of them ending in a read that finds nothing yet.
// Once the header of a large message has been read, SO_RCVLOWAT asks the
// kernel to report the socket readable only when the rest of the message
// is there, so the body arrives in one or two reads.
//
// The watermark must never exceed what the server is bound to send, or the
// reader would wait for bytes that never come. It is therefore set from the
// message being read (whose length its header gives) and lowered as the
// message arrives, and only on plain TCP, where the bytes read from the
// socket are the protocol's own. Under TLS, records read ahead would make
// the count wrong, so those connections are left alone.

const (
	// lowatMin is the smallest remainder worth a watermark: below it the
	// rest comes in one or two more pieces anyway, and each change of the
	// watermark is a system call.
	lowatMin = 16 << 10
	// lowatMax bounds the watermark, and with it how far the kernel grows
	// the socket's receive buffer to hold the message.
	lowatMax = 256 << 10
)

// tunePGSocket is the pool's AfterNetConnect hook. It runs after any TLS
// negotiation, so it sees a *net.TCPConn or *net.UnixConn only when the
// session is plain. Such a session reads and writes with raw system calls
// (see package rawsock), and over TCP it reads large messages whole.
func tunePGSocket(_ context.Context, _ *pgconn.Config, c net.Conn) (net.Conn, error) {
	wrapped := rawsock.Wrap(c)
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return wrapped, nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return wrapped, nil
	}
	return &lowatConn{Conn: wrapped, raw: raw, lowat: 1}, nil
}

// lowatConn follows the message framing of what it reads and keeps the
// socket's SO_RCVLOWAT at the unread remainder of a large message. pgx
// reads a connection from one goroutine at a time (its background reader
// included), so the state needs no lock.
type lowatConn struct {
	net.Conn // the TCP socket, through rawsock where it can
	raw      syscall.RawConn
	frame    framing
	lowat    int  // the watermark in force
	off      bool // tracking stopped: the framing was lost, or the socket closed
}

// Read reads from the socket, then sets the watermark for the next read.
func (c *lowatConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.off {
		if !c.frame.scan(p[:n]) {
			c.off = true
			c.setLowat(1)
			return n, err
		}
		want := 1
		if c.frame.rest >= lowatMin {
			want = min(c.frame.rest, lowatMax)
		}
		c.setLowat(want)
	}
	return n, err
}

// setLowat sets SO_RCVLOWAT to v when it is not already in force.
func (c *lowatConn) setLowat(v int) {
	if v == c.lowat {
		return
	}
	var serr error
	cerr := c.raw.Control(func(fd uintptr) {
		serr = rawsock.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVLOWAT, v)
	})
	if cerr != nil || serr != nil {
		// SO_RCVLOWAT takes any positive value, so this is a closed
		// socket, whose next read fails anyway; stop tracking it.
		c.off = true
		return
	}
	c.lowat = v
}

// framing tracks where a stream of backend messages stands: each is a
// type byte and a four-byte length that counts itself and the body.
type framing struct {
	head [5]byte
	got  int // bytes of head read so far
	rest int // body bytes of the current message not yet read
}

// scan advances over b and reports false if a length is impossible,
// which means the stream is not what the framing assumes.
func (f *framing) scan(b []byte) bool {
	for len(b) > 0 {
		if f.rest > 0 {
			k := min(f.rest, len(b))
			f.rest -= k
			b = b[k:]
			continue
		}
		k := copy(f.head[f.got:], b)
		f.got += k
		b = b[k:]
		if f.got < len(f.head) {
			return true
		}
		f.got = 0
		length := binary.BigEndian.Uint32(f.head[1:])
		if length < 4 {
			return false
		}
		f.rest = int(length) - 4
	}
	return true
}
