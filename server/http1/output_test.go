//go:build linux

package http1

import (
	"net"
	"testing"

	"github.com/svc-dev/svc/server/rawsock"
)

// A connection accepted over TCP reads requests and writes responses with
// raw system calls; another kind of connection is used as it is.
func TestConnReadsAndWritesRawOverTCP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	accepted, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer accepted.Close()
	if c := newConn(&Server{}, accepted); !isRaw(c.r.rwc) || !isRaw(c.out.rwc) || !isRaw(c.io) {
		t.Error("a TCP connection does not read and write raw")
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if c := newConn(&Server{}, a); c.io != a || c.r.rwc != a || c.out.rwc != a {
		t.Error("a pipe is not read and written as it is")
	}
}

func isRaw(c net.Conn) bool {
	_, ok := c.(*rawsock.Conn)
	return ok
}
