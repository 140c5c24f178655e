package rawwrite

import "net"

// Conn is a connection whose writes are raw system calls; everything else
// is the connection's own.
type Conn struct {
	net.Conn
	w *Writer
}

// Wrap returns c writing with raw system calls, or c itself where New
// returns nil.
func Wrap(c net.Conn) net.Conn {
	w := New(c)
	if w == nil {
		return c
	}
	return &Conn{Conn: c, w: w}
}

// Write writes p whole (see Writer.Write).
func (c *Conn) Write(p []byte) (int, error) { return c.w.Write(p) }
