package http1

import (
	"bytes"
	"net"
	"runtime"
	"testing"

	"github.com/svc-dev/svc/server/internal/sockettest"
)

// recordingConn records the calls output makes; it writes nothing.
type recordingConn struct {
	net.Conn
	writes, bufferWrites int
	written              []byte
}

func (c *recordingConn) Write(p []byte) (int, error) {
	c.writes++
	c.written = append(c.written, p...)
	return len(p), nil
}

func (c *recordingConn) WriteBuffers(bufs *net.Buffers) (int64, error) {
	c.bufferWrites++
	var n int64
	for _, b := range *bufs {
		c.written = append(c.written, b...)
		n += int64(len(b))
	}
	*bufs = (*bufs)[:0]
	return n, nil
}

// A head and a body too large to copy behind it leave in one call on a
// connection that writes buffers itself, as raw sockets do: one
// write each would cost a system call, and the client a wake-up, more.
func TestOutputWritesHeadAndLargeBodyInOneCall(t *testing.T) {
	c := &recordingConn{}
	o := output{rwc: c, vectored: c}
	head := []byte("HTTP/1.1 200 OK\r\nContent-Length: 8192\r\n\r\n")
	body := bytes.Repeat([]byte("x"), 8<<10)
	o.head = append(o.head, head...)
	o.send(body)
	o.flush()
	if c.bufferWrites != 1 || c.writes != 0 {
		t.Fatalf("%d buffer writes and %d writes, want one buffer write", c.bufferWrites, c.writes)
	}
	if !bytes.Equal(c.written, append(head, body...)) {
		t.Fatal("the bytes written are not the head then the body")
	}
}

// Connections write buffers themselves where the raw calls exist;
// elsewhere a net.TCPConn's output goes through net.Buffers, which already
// makes one writev.
func TestConnectionsWriteBuffersThemselves(t *testing.T) {
	client, _ := sockettest.TCPPair(t)
	c := newConn(&Server{}, client)
	if got, want := c.out.vectored != nil, runtime.GOOS == "linux"; got != want {
		t.Fatalf("vectored output: %v, want %v", got, want)
	}
}
