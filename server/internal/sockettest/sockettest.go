// Package sockettest makes sockets for tests of the packages that read
// and write them.
package sockettest

import (
	"net"
	"testing"
)

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
