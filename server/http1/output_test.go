package http1

import (
	"bytes"
	"io"
	"testing"

	"github.com/svc-dev/svc/server/internal/sockettest"
)

// A head and a body too large to copy behind it leave together, in
// order: on a TCP connection net.Buffers makes them one writev.
func TestOutputWritesHeadThenLargeBody(t *testing.T) {
	client, server := sockettest.TCPPair(t)
	o := output{rwc: server}
	head := []byte("HTTP/1.1 200 OK\r\nContent-Length: 8192\r\n\r\n")
	body := bytes.Repeat([]byte("x"), 8<<10)
	o.head = append(o.head, head...)
	o.send(body)
	o.flush()
	if o.err != nil {
		t.Fatal(o.err)
	}
	got := make([]byte, len(head)+len(body))
	if _, err := io.ReadFull(client, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, append(head, body...)) {
		t.Fatal("the bytes written are not the head then the body")
	}
}
