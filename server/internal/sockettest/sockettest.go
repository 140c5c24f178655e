// Package sockettest makes sockets for tests of the packages that tune
// them.
package sockettest

import (
	"net"
	"path/filepath"
	"testing"
)

// UnixConn returns the client end of a Unix socket connection whose
// server end is closed once accepted: enough for tests of what a
// connection is, not of what it carries. It closes with the test.
func UnixConn(tb testing.TB) net.Conn {
	tb.Helper()
	ln, err := net.Listen("unix", filepath.Join(tb.TempDir(), "s"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
	}()
	c, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// TCPPair returns both ends of a loopback TCP connection, closed with the
// test.
func TCPPair(tb testing.TB) (client, server *net.TCPConn) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	s := <-accepted
	if s == nil {
		tb.Fatal("accept failed")
	}
	client, server = c.(*net.TCPConn), s.(*net.TCPConn)
	tb.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}
