package dbexec

import (
	"context"
	"encoding/binary"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/svc-dev/svc/server/rawsock"
)

// Large results arrive from PostgreSQL in pieces of its 8 KiB output
// buffer. Read as they come, a 50 KB body costs six wake-ups of the
// reading goroutine, most of them ending in a read that finds nothing yet.
// Once the header of a large message has been read, the socket's receive
// watermark (SO_RCVLOWAT) asks the kernel to report it readable only when
// the rest of the message is there, so the body arrives in one or two
// reads (deploy/bench's page, embed and csv workloads).
//
// The watermark must never exceed what the server is bound to send, or the
// reader would wait for bytes that never come. It is therefore set from the
// message being read (whose length its header gives) and lowered as the
// message arrives, and only on a plain TCP session, where the bytes read
// from the socket are the protocol's own: TLS records read ahead would make
// the count wrong, and a Unix socket's readiness ignores the watermark.

const (
	// watermarkMin is the smallest remainder worth a watermark: below it
	// the rest comes in one or two more pieces anyway, and each change of
	// the watermark is a system call.
	watermarkMin = 16 << 10
	// watermarkMax bounds the watermark, and with it how far the kernel
	// grows the socket's receive buffer to hold the message.
	watermarkMax = 256 << 10
)

// rawSocket is the pool's AfterNetConnect hook. It runs after any TLS
// negotiation, so a TLS session reaches it wrapped and is left alone (rawsock takes only TCP and Unix sockets). A plain
// session reads and writes with raw system calls, and over TCP reads large
// messages whole.
func rawSocket(_ context.Context, _ *pgconn.Config, c net.Conn) (net.Conn, error) {
	rc := rawsock.New(c)
	if rc == nil {
		return c, nil
	}
	if _, tcp := c.(*net.TCPConn); !tcp {
		return rc, nil
	}
	return &watermarkConn{Conn: rc, watermark: 1}, nil
}

// watermarkConn follows the message framing of what it reads and keeps the
// socket's watermark at the unread remainder of a large message. pgx reads
// a connection from one goroutine at a time (its background reader
// included), so the state needs no lock.
type watermarkConn struct {
	*rawsock.Conn
	frame     framing
	watermark int  // the watermark in force
	off       bool // tracking stopped: the framing was lost, or the socket failed
}

// Read reads from the socket, then sets the watermark for the next read.
func (c *watermarkConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.off {
		if !c.frame.scan(p[:n]) {
			c.off = true
			c.setWatermark(1)
			return n, err
		}
		want := 1
		if c.frame.rest >= watermarkMin {
			want = min(c.frame.rest, watermarkMax)
		}
		c.setWatermark(want)
	}
	return n, err
}

// setWatermark sets the watermark to v when it is not already in force.
func (c *watermarkConn) setWatermark(v int) {
	if v == c.watermark {
		return
	}
	if err := c.SetReadWatermark(v); err != nil {
		// The option takes any positive value, so the socket is closed
		// and its next read fails anyway; stop tracking it.
		c.off = true
		return
	}
	c.watermark = v
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
