//go:build linux

package dbexec

import (
	"context"
	"encoding/binary"
	"net"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/svc-dev/svc/server/internal/sockettest"
	"github.com/svc-dev/svc/server/rawsock"
)

// message frames body as a backend message of type typ.
func message(typ byte, body []byte) []byte {
	m := make([]byte, 5+len(body))
	m[0] = typ
	binary.BigEndian.PutUint32(m[1:], uint32(4+len(body)))
	copy(m[5:], body)
	return m
}

func TestFramingFollowsMessagesAcrossAnySplit(t *testing.T) {
	var stream []byte
	stream = append(stream, message('1', nil)...)
	stream = append(stream, message('D', make([]byte, 300))...)
	stream = append(stream, message('C', []byte("SELECT 1\x00"))...)
	stream = append(stream, message('Z', []byte("I"))...)
	// rest after each prefix of the stream, computed from the layout:
	// within a body it counts down, elsewhere it is 0.
	want := make([]int, len(stream)+1)
	for off := 0; off < len(stream); {
		n := int(binary.BigEndian.Uint32(stream[off+1:])) - 4
		for i := 0; i <= n; i++ {
			want[off+5+i] = n - i
		}
		off += 5 + n
	}
	for cut := 0; cut <= len(stream); cut++ {
		var f framing
		if !f.scan(stream[:cut]) {
			t.Fatalf("cut %d: framing lost", cut)
		}
		if f.rest != want[cut] {
			t.Fatalf("cut %d: rest = %d, want %d", cut, f.rest, want[cut])
		}
		if !f.scan(stream[cut:]) || f.rest != 0 || f.got != 0 {
			t.Fatalf("cut %d: after the whole stream rest = %d, got = %d, want 0, 0", cut, f.rest, f.got)
		}
	}
}

func TestFramingRejectsImpossibleLength(t *testing.T) {
	var f framing
	if f.scan([]byte{'D', 0, 0, 0, 3}) {
		t.Fatal("a length below 4 was accepted")
	}
}

// socketState reports the socket's SO_RCVLOWAT and how many bytes wait
// in its receive queue.
func socketState(t *testing.T, c *lowatConn) (lowat, queued int) {
	t.Helper()
	var err error
	cerr := c.raw.Control(func(fd uintptr) {
		lowat, err = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT)
		if err != nil {
			return
		}
		var q int32 // the kernel writes an int
		_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&q)))
		if errno != 0 {
			err = errno
		}
		queued = int(q)
	})
	if cerr != nil || err != nil {
		t.Fatal(cerr, err)
	}
	return lowat, queued
}

// readable reports whether the kernel reports c readable right now.
func readable(t *testing.T, c *lowatConn) bool {
	t.Helper()
	var n int
	var err error
	cerr := c.raw.Control(func(fd uintptr) {
		var set syscall.FdSet
		set.Bits[fd/64] |= 1 << (fd % 64)
		n, err = syscall.Select(int(fd)+1, &set, nil, nil, &syscall.Timeval{})
	})
	if cerr != nil || err != nil {
		t.Fatal(cerr, err)
	}
	return n > 0
}

// awaitQueued waits until at least n bytes wait in c's receive queue.
func awaitQueued(t *testing.T, c *lowatConn, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, q := socketState(t, c); q >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes never arrived", n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestLowatConnWaitsForTheRestOfALargeMessage(t *testing.T) {
	client, peer := sockettest.TCPPair(t)
	wrapped, _ := tunePGSocket(context.Background(), nil, client)
	c, ok := wrapped.(*lowatConn)
	if !ok {
		t.Fatalf("a plain TCP connection was not wrapped: %T", wrapped)
	}
	large := message('D', make([]byte, 100<<10))
	ready := message('Z', []byte("I"))
	buf := make([]byte, 512<<10)
	readN := func(n int) {
		t.Helper()
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		for got := 0; got < n; {
			k, err := c.Read(buf[got:])
			if err != nil {
				t.Fatal(err)
			}
			got += k
		}
	}

	// The header and the first 8 KiB: the rest of the body is owed.
	const first = 5 + 8<<10
	peer.Write(large[:first])
	readN(first)
	rest := len(large) - first
	if lowat, _ := socketState(t, c); lowat != rest {
		t.Fatalf("SO_RCVLOWAT = %d after the header, want the %d bytes owed", lowat, rest)
	}

	// Part of the rest is not enough to wake the reader.
	peer.Write(large[first : first+10<<10])
	awaitQueued(t, c, 10<<10)
	if readable(t, c) {
		t.Fatal("readable with 10 KiB of the message's rest queued")
	}

	// All of it, and the message after, is.
	peer.Write(large[first+10<<10:])
	peer.Write(ready)
	awaitQueued(t, c, rest+len(ready))
	if !readable(t, c) {
		t.Fatal("not readable with the whole rest queued")
	}
	readN(rest + len(ready))
	if lowat, _ := socketState(t, c); lowat != 1 {
		t.Fatalf("SO_RCVLOWAT = %d between messages, want 1", lowat)
	}
}

func TestLowatConnLeavesSmallMessagesAlone(t *testing.T) {
	client, peer := sockettest.TCPPair(t)
	wrapped, _ := tunePGSocket(context.Background(), nil, client)
	c := wrapped.(*lowatConn)
	small := message('D', make([]byte, lowatMin+100))
	// Leave less than lowatMin of the body owed.
	peer.Write(small[:200])
	buf := make([]byte, 1024)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for got := 0; got < 200; {
		k, err := c.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got += k
	}
	if lowat, _ := socketState(t, c); lowat != 1 {
		t.Fatalf("SO_RCVLOWAT = %d with %d bytes owed, want 1", lowat, len(small)-200)
	}
}

func TestTunePGSocketLeavesOtherConnections(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	got, err := tunePGSocket(context.Background(), nil, a)
	if err != nil || got != a {
		t.Fatalf("tunePGSocket(pipe) = %T, %v; want the pipe unchanged", got, err)
	}
}

// A session over a Unix socket reads and writes raw, without the
// watermark, which is kept to TCP.
func TestTunePGSocketMakesUnixSocketsRaw(t *testing.T) {
	got, err := tunePGSocket(context.Background(), nil, sockettest.UnixConn(t))
	if _, ok := got.(*rawsock.Conn); err != nil || !ok {
		t.Fatalf("tunePGSocket(Unix socket) = %T, %v; want a *rawsock.Conn", got, err)
	}
}
