//go:build linux

package http1

import (
	"net"
	"testing"
)

// A connection accepted over TCP writes its responses with raw system
// calls; one on another kind of connection writes through it.
func TestConnWritesRawOverTCP(t *testing.T) {
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
	if c := newConn(&Server{}, accepted); c.out.raw == nil {
		t.Error("a TCP connection's output does not write raw")
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if c := newConn(&Server{}, a); c.out.raw != nil {
		t.Error("a pipe's output writes raw")
	}
}
