package dbexec

import (
	"context"
	"net"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/svc-dev/svc/server/internal/sockettest"
)

// socketState reports c's SO_RCVLOWAT and how many bytes wait in its
// receive queue.
func socketState(t *testing.T, c *net.TCPConn) (watermark, queued int) {
	t.Helper()
	raw, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	cerr := raw.Control(func(fd uintptr) {
		watermark, err = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT)
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
	return watermark, queued
}

// readable reports whether the kernel reports c readable right now.
func readable(t *testing.T, c *net.TCPConn) bool {
	t.Helper()
	raw, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var ready bool
	cerr := raw.Control(func(fd uintptr) {
		fds := []pollFd{{fd: int32(fd), events: pollIn}}
		n, _, errno := syscall.Syscall(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), 1, uintptr(unsafe.Pointer(&syscall.Timespec{})))
		if errno != 0 {
			err = errno
		}
		ready = n > 0 && fds[0].revents&pollIn != 0
	})
	if cerr != nil || err != nil {
		t.Fatal(cerr, err)
	}
	return ready
}

// pollFd is the kernel's struct pollfd.
type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

const pollIn = 0x1

// awaitQueued waits until at least n bytes wait in c's receive queue.
func awaitQueued(t *testing.T, c *net.TCPConn, n int) {
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

// watermarked is rawSocket's connection over client, which must keep the
// watermark.
func watermarked(t *testing.T, client *net.TCPConn) *watermarkConn {
	t.Helper()
	wrapped, err := rawSocket(context.Background(), nil, client)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := wrapped.(*watermarkConn)
	if !ok {
		t.Fatalf("a plain TCP connection was not wrapped: %T", wrapped)
	}
	return c
}

// readN reads n bytes from c.
func readN(t *testing.T, c net.Conn, n int) {
	t.Helper()
	buf := make([]byte, n)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for got := 0; got < n; {
		k, err := c.Read(buf[got:])
		if err != nil {
			t.Fatal(err)
		}
		got += k
	}
}

func TestWatermarkWaitsForTheRestOfALargeMessage(t *testing.T) {
	client, peer := sockettest.TCPPair(t)
	c := watermarked(t, client)
	large := message('D', make([]byte, 100<<10))
	ready := message('Z', []byte("I"))

	// The header and the first 8 KiB: the rest of the body is owed.
	const first = 5 + 8<<10
	peer.Write(large[:first])
	readN(t, c, first)
	rest := len(large) - first
	if watermark, _ := socketState(t, client); watermark != rest {
		t.Fatalf("SO_RCVLOWAT = %d after the header, want the %d bytes owed", watermark, rest)
	}

	// Part of the rest is not enough to wake the reader.
	peer.Write(large[first : first+10<<10])
	awaitQueued(t, client, 10<<10)
	if readable(t, client) {
		t.Fatal("readable with 10 KiB of the message's rest queued")
	}

	// All of it, and the message after, is.
	peer.Write(large[first+10<<10:])
	peer.Write(ready)
	awaitQueued(t, client, rest+len(ready))
	if !readable(t, client) {
		t.Fatal("not readable with the whole rest queued")
	}
	readN(t, c, rest+len(ready))
	if watermark, _ := socketState(t, client); watermark != 1 {
		t.Fatalf("SO_RCVLOWAT = %d between messages, want 1", watermark)
	}
}

func TestWatermarkCapsAndFollowsAHugeMessage(t *testing.T) {
	client, peer := sockettest.TCPPair(t)
	c := watermarked(t, client)
	huge := message('D', make([]byte, 1<<20))
	go peer.Write(huge)
	readN(t, c, 5)
	if watermark, _ := socketState(t, client); watermark != watermarkMax {
		t.Fatalf("SO_RCVLOWAT = %d with 1 MiB owed, want the cap %d", watermark, watermarkMax)
	}
	// The rest arrives whole however the reads fall, the watermark
	// lowered as less is owed.
	readN(t, c, len(huge)-5)
	if watermark, _ := socketState(t, client); watermark != 1 {
		t.Fatalf("SO_RCVLOWAT = %d after the message, want 1", watermark)
	}
}

func TestWatermarkLeavesSmallMessagesAlone(t *testing.T) {
	client, peer := sockettest.TCPPair(t)
	c := watermarked(t, client)
	small := message('D', make([]byte, watermarkMin+100))
	// Leave less than watermarkMin of the body owed.
	peer.Write(small[:200])
	readN(t, c, 200)
	if watermark, _ := socketState(t, client); watermark != 1 {
		t.Fatalf("SO_RCVLOWAT = %d with %d bytes owed, want 1", watermark, len(small)-200)
	}
}

func TestWatermarkStopsWhenTheFramingIsLost(t *testing.T) {
	client, peer := sockettest.TCPPair(t)
	c := watermarked(t, client)
	peer.Write(message('D', make([]byte, 100<<10))[:5+100])
	readN(t, c, 5+100)
	peer.Write(make([]byte, 100<<10-100)) // the rest of the body
	readN(t, c, 100<<10-100)
	peer.Write([]byte{'D', 0, 0, 0, 2}) // a length no message has
	readN(t, c, 5)
	if !c.off {
		t.Fatal("still tracking after an impossible length")
	}
	if watermark, _ := socketState(t, client); watermark != 1 {
		t.Fatalf("SO_RCVLOWAT = %d once lost, want 1", watermark)
	}
}

func TestRawSocketKeepsNoWatermarkOnUnixSockets(t *testing.T) {
	got, err := rawSocket(context.Background(), nil, sockettest.UnixConn(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, watermarked := got.(*watermarkConn); watermarked {
		t.Fatal("a Unix socket keeps a watermark its readiness ignores")
	}
}

func TestRawSocketLeavesOtherConnections(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	got, err := rawSocket(context.Background(), nil, a)
	if err != nil || got != a {
		t.Fatalf("rawSocket(pipe) = %T, %v; want the pipe unchanged", got, err)
	}
}
