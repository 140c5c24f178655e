package replica_test

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-dev/svc/server"
	"github.com/svc-dev/svc/server/internal/benchclient"
)

// BenchmarkReplicaReads measures read throughput with 0, 1 and 2
// replicas: many clients at once, each on its own keep-alive connection,
// looking items up by key. On one machine the primary and the standbys
// share its cores, so the figures show what routing costs, not how far
// reads scale across servers.
func BenchmarkReplicaReads(b *testing.B) {
	for _, standbys := range [][]int{nil, {0}, {0, 1}} {
		b.Run("replicas="+strconv.Itoa(len(standbys)), func(b *testing.B) {
			ts := startServer(b, testConfig(), nil, standbys...)
			if ts.Replicas != nil {
				ts.awaitServing(b)
			}
			addr := strings.TrimPrefix(ts.URL, "http://")
			var next atomic.Int64
			b.SetParallelism(16)
			b.ReportAllocs()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					b.Error(err)
					return
				}
				defer c.Close()
				br := bufio.NewReaderSize(c, 64<<10)
				for pb.Next() {
					id := next.Add(1)%1000 + 1
					req := "GET /items?id=eq." + strconv.FormatInt(id, 10) + " HTTP/1.1\r\nHost: bench\r\nAccept: application/json\r\n\r\n"
					if _, err := c.Write([]byte(req)); err != nil {
						b.Error(err)
						return
					}
					benchclient.ReadOK(b, br)
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
		})
	}
}

// BenchmarkForgedPositions measures what clients sending positions ahead
// of the primary cost: many at once, each on its own keep-alive
// connection. Each such position is judged by a read of the primary's
// position, shared by the requests waiting for it and at most one per
// replica.DefaultRecheck; position-reads/op is the share of requests that
// made one. Every read must still run on the replica.
func BenchmarkForgedPositions(b *testing.B) {
	ts := startServer(b, testConfig(), nil, 0)
	ts.awaitServing(b)
	rep := ts.Replicas.Replicas()[0]
	addr := strings.TrimPrefix(ts.URL, "http://")
	req := []byte("GET /items?id=eq.7 HTTP/1.1\r\nHost: bench\r\nAccept: application/json\r\n" +
		server.CommitLSNHeader + ": FFFFFFFF/FFFFFFFF\r\n\r\n")
	beforeReads, beforeRequests := ts.Replicas.PositionReads(), rep.Requests()
	b.SetParallelism(8)
	b.ReportAllocs()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Error(err)
			return
		}
		defer c.Close()
		br := bufio.NewReaderSize(c, 64<<10)
		for pb.Next() {
			if _, err := c.Write(req); err != nil {
				b.Error(err)
				return
			}
			benchclient.ReadOK(b, br)
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	b.ReportMetric(float64(ts.Replicas.PositionReads()-beforeReads)/float64(b.N), "position-reads/op")
	if on := rep.Requests() - beforeRequests; on < uint64(b.N) {
		b.Fatalf("%d of %d reads ran on the replica", on, b.N)
	}
}

// BenchmarkReadYourWrites measures what routing and read-your-writes
// cost, one request at a time on one connection: a read on the primary
// without replicas, on the replica without a position and with one it has
// replayed (the check is one more statement in the read's round trip),
// and a write without replicas and with them (the position is read after
// the commit, in the round trip that commits, which makes the transaction
// an explicit one).
func BenchmarkReadYourWrites(b *testing.B) {
	withReplica := startServer(b, testConfig(), nil, 0)
	withReplica.awaitServing(b)
	primaryOnly := startServer(b, testConfig(), nil)
	_, pos := withReplica.note(b, "benchmark")
	rep := withReplica.Replicas.Replicas()[0]
	waitFor(b, "the replica replays the write", func() bool { return rep.Status().Replayed >= pos })

	read := "GET /items?id=eq.7 HTTP/1.1\r\nHost: bench\r\nAccept: application/json\r\n"
	write := "POST /notes HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"body\":\"load\"}"
	for _, c := range []struct {
		name      string
		ts        *testServer
		req       string
		code      string
		onReplica bool
	}{
		{"read without replicas", primaryOnly, read + "\r\n", "200", false},
		{"read on the replica", withReplica, read + "\r\n", "200", true},
		{"read on the replica with a position", withReplica, read + server.CommitLSNHeader + ": " + pos.String() + "\r\n\r\n", "200", true},
		{"write without replicas", primaryOnly, write, "201", false},
		{"write with replicas", withReplica, write, "201", false},
	} {
		b.Run(c.name, func(b *testing.B) {
			before := rep.Requests()
			c2, err := net.Dial("tcp", strings.TrimPrefix(c.ts.URL, "http://"))
			if err != nil {
				b.Fatal(err)
			}
			defer c2.Close()
			br := bufio.NewReaderSize(c2, 64<<10)
			req := []byte(c.req)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c2.Write(req); err != nil {
					b.Fatal(err)
				}
				readStatus(b, br, c.code)
			}
			if c.onReplica && rep.Requests()-before < uint64(b.N) {
				b.Fatalf("%d of %d reads ran on the replica", rep.Requests()-before, b.N)
			}
		})
	}
}

// readStatus reads a response with the status code and a Content-Length
// (or none, for no body), failing tb on another status.
func readStatus(tb testing.TB, br *bufio.Reader, code string) {
	tb.Helper()
	line, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 "+code+" ") {
		tb.Fatalf("status line %q, %v", line, err)
	}
	n := 0
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			tb.Fatal(err)
		}
		if len(line) <= 2 {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if _, err := br.Discard(n); err != nil {
		tb.Fatal(err)
	}
}
