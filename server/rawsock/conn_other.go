//go:build !linux

package rawsock

import "net"

// Conn is a connection with raw reads and writes, which only Linux has.
type Conn struct{ net.Conn }

// New returns nil: there are no raw calls here.
func New(net.Conn) *Conn { return nil }

// Wrap returns c as it is.
func Wrap(c net.Conn) net.Conn { return c }
