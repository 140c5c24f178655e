//go:build linux

package rawsock

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/internal/sockettest"
)

// tcpPair returns the two ends of a loopback TCP connection, with small
// socket buffers so that megabytes cannot be written without waiting for
// the reader.
func tcpPair(t *testing.T) (client, server *net.TCPConn) {
	t.Helper()
	client, server = sockettest.TCPPair(t)
	client.SetWriteBuffer(16 << 10)
	server.SetReadBuffer(16 << 10)
	return client, server
}

// pattern returns n bytes that differ from one position to the next, so
// lost, repeated or reordered pieces show.
func pattern(n, seed int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte((i*7 + i/251 + seed) % 256)
	}
	return b
}

// readAllLater starts reading c after a pause, so the writer first fills
// the socket buffers and has to wait for room, and returns what it read
// once c reaches end of file.
func readAllLater(c net.Conn) <-chan []byte {
	got := make(chan []byte, 1)
	go func() {
		time.Sleep(50 * time.Millisecond)
		b, _ := io.ReadAll(c)
		got <- b
	}()
	return got
}

// expectReceived ends client's sending side and checks that its peer,
// reading into got, received want.
func expectReceived(t *testing.T, client *net.TCPConn, got <-chan []byte, want []byte) {
	t.Helper()
	client.CloseWrite()
	if b := <-got; !bytes.Equal(b, want) {
		t.Fatalf("read %d bytes that differ from the %d written", len(b), len(want))
	}
}

func TestWriteWaitsForRoomAndWritesAll(t *testing.T) {
	client, server := tcpPair(t)
	w := New(client)
	if w == nil {
		t.Fatal("New(TCP connection) = nil")
	}
	want := pattern(4<<20, 1)
	got := readAllLater(server)
	n, err := w.Write(want)
	if err != nil || n != len(want) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(want))
	}
	expectReceived(t, client, got, want)
}

func TestWriteBuffersKeepsOrderAcrossCalls(t *testing.T) {
	client, server := tcpPair(t)
	w := New(client)
	// More buffers than one writev takes, empty ones among them, and
	// enough bytes that the writes are partial.
	var bufs net.Buffers
	var want []byte
	for i := range 3*maxIovecs + 1 {
		b := pattern((i%5)*97_001, i)
		bufs = append(bufs, b)
		want = append(want, b...)
	}
	got := readAllLater(server)
	n, err := w.WriteBuffers(&bufs)
	if err != nil || n != int64(len(want)) {
		t.Fatalf("WriteBuffers = %d, %v; want %d, nil", n, err, len(want))
	}
	if len(bufs) != 0 {
		t.Errorf("%d buffers left after a whole write, want none", len(bufs))
	}
	expectReceived(t, client, got, want)
}

func TestWriteHonoursDeadline(t *testing.T) {
	client, _ := tcpPair(t)
	w := New(client)
	client.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	p := pattern(8<<20, 2)
	n, err := w.Write(p) // nobody reads, so the buffers fill
	if n >= len(p) || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Write past the deadline = %d, %v; want a short count and os.ErrDeadlineExceeded", n, err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("error %v is not a net.Error timeout", err)
	}
	assertOp(t, err, "write")
}

func TestWriteToResetPeerFails(t *testing.T) {
	client, server := tcpPair(t)
	w := New(client)
	server.SetLinger(0) // close with a reset
	server.Close()
	time.Sleep(20 * time.Millisecond)
	var err error
	for range 100 {
		if _, err = w.Write(pattern(64<<10, 3)); err != nil {
			break
		}
	}
	if !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("Write to a reset peer: %v; want EPIPE or ECONNRESET", err)
	}
	assertOp(t, err, "write")
	// net's own Write fails the same way on the same socket.
	_, nerr := client.Write([]byte("x"))
	var mine, theirs *net.OpError
	errors.As(err, &mine)
	if !errors.As(nerr, &theirs) || theirs.Net != mine.Net || theirs.Source.String() != mine.Source.String() || theirs.Addr.String() != mine.Addr.String() {
		t.Errorf("raw write error %#v, net's %#v: want the same addresses", mine, theirs)
	}
}

func TestWriteOnClosedConnection(t *testing.T) {
	client, _ := tcpPair(t)
	w := New(client)
	client.Close()
	if _, err := w.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Write after Close: %v; want net.ErrClosed", err)
	}
	bufs := net.Buffers{[]byte("x")}
	if _, err := w.WriteBuffers(&bufs); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("WriteBuffers after Close: %v; want net.ErrClosed", err)
	}
}

// assertOp checks that err reads as net.Conn's op failing.
func assertOp(t *testing.T, err error, op string) {
	t.Helper()
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != op {
		t.Errorf("error %#v is not a *net.OpError of operation %s", err, op)
	}
}

func TestNewTakesOnlyPlainSockets(t *testing.T) {
	client, _ := tcpPair(t)
	if New(client) == nil {
		t.Error("New(TCP) = nil")
	}
	if New(sockettest.UnixConn(t)) == nil {
		t.Error("New(Unix socket) = nil")
	}
	if New(tls.Client(client, &tls.Config{})) != nil {
		t.Error("New(TLS session) != nil; TLS must write through its own layer")
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if New(a) != nil {
		t.Error("New(net.Pipe) != nil")
	}
	if Wrap(a) != a {
		t.Error("Wrap(net.Pipe) wrapped it")
	}
	if _, ok := Wrap(client).(*Conn); !ok {
		t.Error("Wrap(TCP) did not wrap it")
	}
}

func TestReadWaitsAndReadsToEOF(t *testing.T) {
	client, server := tcpPair(t)
	c := New(client)
	want := pattern(3<<20, 5)
	go func() {
		time.Sleep(50 * time.Millisecond) // the first read waits
		for b := want; len(b) > 0; {
			k := min(len(b), 100_003)
			server.Write(b[:k])
			b = b[k:]
		}
		server.CloseWrite()
	}()
	if n, err := c.Read(nil); n != 0 || err != nil {
		t.Fatalf("Read(nil) = %d, %v; want 0, nil", n, err)
	}
	got, err := io.ReadAll(c)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, %v; want the %d written", len(got), err, len(want))
	}
	if n, err := c.Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Fatalf("Read at the end = %d, %v; want 0, io.EOF", n, err)
	}
}

func TestReadHonoursDeadline(t *testing.T) {
	client, _ := tcpPair(t)
	c := New(client)
	client.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	n, err := c.Read(make([]byte, 10))
	if n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past the deadline = %d, %v; want 0, os.ErrDeadlineExceeded", n, err)
	}
	assertOp(t, err, "read")
}

func TestReadFromResetPeerFails(t *testing.T) {
	client, server := tcpPair(t)
	c := New(client)
	server.Write([]byte("unread")) // unread data makes the close a reset
	time.Sleep(20 * time.Millisecond)
	client.Write([]byte("x"))
	server.SetLinger(0)
	server.Close()
	time.Sleep(20 * time.Millisecond)
	var err error
	for range 10 {
		if _, err = c.Read(make([]byte, 64)); err != nil {
			break
		}
	}
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("Read from a reset peer: %v; want ECONNRESET", err)
	}
	assertOp(t, err, "read")
}

func TestReadOnClosedConnection(t *testing.T) {
	client, _ := tcpPair(t)
	c := New(client)
	client.Close()
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Read after Close: %v; want net.ErrClosed", err)
	}
}

// The poller's callbacks and the call's state live in the Conn, so reads
// and writes allocate nothing on the request path.
func TestReadAndWriteAllocateNothing(t *testing.T) {
	client, server := tcpPair(t)
	w, r := New(client), New(server)
	p, buf := []byte("ping"), make([]byte, 16)
	var vec [2][]byte // WriteBuffers consumes its slice, as WriteTo does
	allocs := testing.AllocsPerRun(100, func() {
		w.Write(p)
		bufs := append(net.Buffers(vec[:0]), p, p)
		w.WriteBuffers(&bufs)
		for got := 0; got < 3*len(p); {
			n, _ := r.Read(buf)
			got += n
		}
	})
	if allocs != 0 {
		t.Errorf("a Write, a WriteBuffers and their Reads allocate %.1f times, want 0", allocs)
	}
}

// Concurrent callers each write whole, as on a net.Conn: the state kept in
// the Conn is not shared between two calls at once.
func TestConcurrentWritesStayWhole(t *testing.T) {
	client, server := tcpPair(t)
	client.SetWriteBuffer(1 << 20) // tcpPair's small buffers make this slow
	server.SetReadBuffer(1 << 20)
	c := New(client)
	const chunk, rounds = 10_000, 50
	got := readAllLater(server)
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			piece := bytes.Repeat([]byte{byte('a' + g)}, chunk)
			for range rounds {
				if g == 0 {
					c.Write(piece)
				} else {
					bufs := net.Buffers{piece[:chunk/2], piece[chunk/2:]}
					c.WriteBuffers(&bufs)
				}
			}
		}()
	}
	wg.Wait()
	client.CloseWrite()
	b := <-got
	if len(b) != 2*chunk*rounds {
		t.Fatalf("read %d bytes, want %d", len(b), 2*chunk*rounds)
	}
	for i := 0; i < len(b); i += chunk {
		if piece := b[i : i+chunk]; !bytes.Equal(piece, bytes.Repeat(piece[:1], chunk)) {
			t.Fatalf("bytes %d-%d mix two writes", i, i+chunk)
		}
	}
}
