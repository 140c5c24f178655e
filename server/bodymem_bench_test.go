package server_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/config"
)

// BenchmarkWriteBodyMemory posts bulk inserts of 1, 8 and 32 MB as CSV and
// as JSON through the whole server and reports what one request costs in
// memory: B/op is every byte allocated while serving it (pgx's included),
// peak-heap-B the most the heap's objects grew above where they stood
// before it, and peak/body that growth over the body's size, the multiple
// README.md's sizing uses. The server ends every transaction with a
// rollback, so rounds do not grow the table; ns/op includes PostgreSQL's
// insert and is only a rough guide. Run one size at a time for figures
// that do not inherit the previous size's heap:
//
//	go test ./server -run '^$' -bench 'WriteBodyMemory/csv-32MB' -benchtime 3x
func BenchmarkWriteBodyMemory(b *testing.B) {
	flags := map[string]string{"db-uri": fixture.cfg.DBURI, "db-schemas": strings.Join(fixture.cfg.DBSchemas, ","),
		"db-anon-role": fixture.cfg.DBAnonRole, "db-tx-end": "rollback", "server-max-body-bytes": "67108864"}
	cfg, _, err := config.Load(config.Sources{Flags: flags})
	if err != nil {
		b.Fatal(err)
	}
	srv, _, err := startServer(b.Context(), cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	for _, kind := range []string{"csv", "json"} {
		for _, mb := range []int{1, 8, 32} {
			body := bulkBody(kind, mb<<20)
			b.Run(fmt.Sprintf("%s-%dMB", kind, mb), func(b *testing.B) {
				benchPost(b, srv.URL, kind, body)
			})
		}
	}
	// The CSV that grows most as JSON: one-byte fields that JSON must
	// write as \u00XX, the worst case of the multiple README.md states.
	worst := "name,note\n" + strings.Repeat("\x01,\x01\n", 8<<20/4)
	b.Run("csv-escapes-8MB", func(b *testing.B) { benchPost(b, srv.URL, "csv", worst) })
}

// benchPost sends body to /w_items over one connection per round and
// samples the heap while the server works.
func benchPost(b *testing.B, baseURL, kind, body string) {
	contentType := map[string]string{"csv": "text/csv", "json": "application/json"}[kind]
	req := []byte(fmt.Sprintf("POST /w_items HTTP/1.1\r\nHost: bench\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s",
		contentType, len(body), body))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var peakGrowth uint64
	for b.Loop() {
		b.StopTimer()
		c, err := net.Dial("tcp", strings.TrimPrefix(baseURL, "http://"))
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		base := heapObjectBytes()
		var peak atomic.Uint64
		done := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			for {
				if h := heapObjectBytes(); h > peak.Load() {
					peak.Store(h)
				}
				select {
				case <-done:
					return
				case <-time.After(200 * time.Microsecond):
				}
			}
		}()
		b.StartTimer()
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			b.Fatal(err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		b.StopTimer()
		close(done)
		<-sampled
		c.Close()
		if resp.StatusCode != http.StatusCreated {
			b.Fatalf("%d %s", resp.StatusCode, msg)
		}
		if p := peak.Load(); p > base {
			peakGrowth = max(peakGrowth, p-base)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(peakGrowth), "peak-heap-B")
	b.ReportMetric(float64(peakGrowth)/float64(len(body)), "peak/body")
}

// heapObjectBytes is the memory held by heap objects, live or not yet swept:
// what the heap would need were it never collected earlier.
func heapObjectBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// bulkBody is a w_items insert of about size bytes: short names and notes,
// as a bulk load would send.
func bulkBody(kind string, size int) string {
	var sb strings.Builder
	sb.Grow(size + 64)
	if kind == "csv" {
		sb.WriteString("name,qty,note\n")
	} else {
		sb.WriteByte('[')
	}
	for i := 0; sb.Len() < size; i++ {
		if kind == "csv" {
			fmt.Fprintf(&sb, "item %d,%d,note %d\n", i, i%100, i%7)
			continue
		}
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"name":"item %d","qty":%d,"note":"note %d"}`, i, i%100, i%7)
	}
	if kind == "json" {
		sb.WriteByte(']')
	}
	return sb.String()
}
