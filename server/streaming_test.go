package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// streamSchema creates the schema the streaming tests read, once: big,
// 230,000 rows of about 95 bytes of JSON each (22 MB, twenty-one times the
// default response buffer); loaded and deferred, for bulk writes (the
// latter's key checked at commit); huge, a view of 1,100,000 rows of about
// 1 KB (1.1 GB, past PostgreSQL's largest value); failing, rows that fail
// at the 150,000th; stream_write, a call that writes a row and returns
// rows whose output may fail; marked, a view of 2.4 MB whose rows set a
// response header, and pre, a db-pre-request function that sets one.
var streamSchema = sync.OnceValue(func() error {
	conn, err := pgx.Connect(context.Background(), fixture.superURI)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(context.Background(), `
		create schema stream;
		grant usage on schema stream to web_anon;
		create table stream.big as
			select g as id, md5(g::text) as a, g * 7 as b, timestamptz '2026-01-01' + g * interval '1 second' as c
			from generate_series(1, 230000) g;
		alter table stream.big add primary key (id);
		create view stream.huge as select g, repeat('x', 1000) as pad from generate_series(1, 1100000) g;
		create view stream.failing as select g, 1 / (150000 - g) as q from generate_series(1, 200000) g;
		create table stream.writes (id serial primary key, note text);
		create function stream.stream_write(note text, n int) returns table (id int, v numeric)
			language plpgsql as $$
			begin
				insert into stream.writes (note) values (stream_write.note);
				return query select g, case when g > n - 1000 then 1e20 else g end from generate_series(1, n) g;
			end $$;
		create function stream.mark(g int) returns int language plpgsql as $$
			begin
				perform set_config('response.headers', '[{"X-Marked":"yes"}]', true);
				return g;
			end $$;
		create view stream.marked as select stream.mark(g) as g, repeat('x', 100) as pad from generate_series(1, 20000) g;
		create function stream.pre() returns void language plpgsql as $$
			begin perform set_config('response.headers', '[{"X-Pre":"yes"}]', true); end $$;
		grant select on all tables in schema stream to web_anon;
		grant insert on stream.writes to web_anon;
		grant usage on all sequences in schema stream to web_anon;
		grant execute on function stream.stream_write(text, int) to web_anon;
		create table stream.loaded (id int primary key, a text, b int);
		create table stream.deferred (id int unique deferrable initially deferred, a text);
		grant select, insert, update on stream.loaded, stream.deferred to web_anon;`)
	return err
})

// streamServer starts svc-serve on the stream schema with settings.
func streamServer(t *testing.T, settings map[string]string) (string, *syncBuffer, int) {
	t.Helper()
	if err := streamSchema(); err != nil {
		t.Fatal(err)
	}
	conf := map[string]string{"db-schemas": "stream", "db-channel-enabled": "false"}
	for k, v := range settings {
		conf[k] = v
	}
	url, out, cmd := processCmdWith(t, conf)
	return url, out, cmd.Process.Pid
}

// A read twenty times the response buffer leaves chunked, as its rows
// arrive, and sixteen at once keep svc-serve within its idle memory and
// the bodies' budget (server-response-buffers-max-bytes, 64 MiB): memory
// follows the requests, not the results.
func TestLargeReadsStreamInBoundedMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads svc-serve's memory from /proc, which only Linux has")
	}
	if testing.Short() {
		t.Skip("16 reads of 22 MB each")
	}
	// A pool of 32: its half, the sessions clients lagging behind may
	// hold, takes all sixteen should a loaded machine have them lag, as
	// this test is of memory and not of slow clients.
	url, _, pid := streamServer(t, map[string]string{"db-pool": "32"})
	// The pool's sessions opened and used, as a server's are once it has
	// served for a while.
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() { mustGet(t, url+"/big?id=eq.1") })
	}
	wg.Wait()
	idle := procField(t, pid, "status", "VmRSS")

	bodies := make([][]byte, 16)
	for i := range bodies {
		wg.Go(func() {
			resp, err := http.Get(url + "/big?order=id")
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.ContentLength != -1 || resp.Header.Get("Content-Range") != "0-*/*" {
				t.Errorf("%d, length %d, Content-Range %q: want 200, chunked, 0-*/*", resp.StatusCode, resp.ContentLength, resp.Header.Get("Content-Range"))
			}
			bodies[i], err = io.ReadAll(resp.Body)
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	peak := procField(t, pid, "status", "VmHWM")
	t.Logf("svc-serve: %d MiB idle, %d MiB at its peak, for 16 bodies of %d MB", idle>>20, peak>>20, len(bodies[0])/1e6)
	if grown := peak - idle; grown > 64<<20 {
		t.Errorf("svc-serve grew by %d MiB past its idle %d MiB, more than the bodies' budget of 64 MiB", grown>>20, idle>>20)
	}
	var rows []struct {
		ID int    `json:"id"`
		A  string `json:"a"`
	}
	if err := json.Unmarshal(bodies[0], &rows); err != nil {
		t.Fatalf("the body is not a JSON array: %v", err)
	}
	if len(rows) != 230000 || rows[0].ID != 1 || rows[229999].ID != 230000 {
		t.Fatalf("%d rows, want the 230,000 in order", len(rows))
	}
	for i, b := range bodies[1:] {
		if !bytes.Equal(b, bodies[0]) {
			t.Errorf("body %d differs from the first (%d and %d bytes)", i+1, len(b), len(bodies[0]))
		}
	}
}

// A small answer keeps its length and counted range; a large one with
// an exact count says the count, counted first, and the status it
// decides.
func TestStreamedAnswerHeaders(t *testing.T) {
	url, _, _ := streamServer(t, nil)
	cases := []struct {
		path, prefer, status, contentRange string
		chunked                            bool
	}{
		{"/big?id=lte.3", "", "200", "0-2/*", false},
		{"/big?id=lte.3", "count=exact", "200", "0-2/3", false},
		{"/big?order=id", "count=exact", "200", "0-*/230000", true},
		{"/big?order=id&limit=150000", "count=exact", "206", "0-*/230000", true},
		{"/big?order=id&offset=10", "count=exact", "206", "10-*/230000", true},
		{"/big?order=id&offset=10", "", "200", "10-*/*", true},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(http.MethodGet, url+c.path, nil)
		if c.prefer != "" {
			req.Header.Set("Prefer", c.prefer)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		got := resp.Status[:3]
		if got != c.status || resp.Header.Get("Content-Range") != c.contentRange || (resp.ContentLength == -1) != c.chunked {
			t.Errorf("%s (%s): %s, Content-Range %q, length %d; want %s, %q, chunked %v",
				c.path, c.prefer, got, resp.Header.Get("Content-Range"), resp.ContentLength, c.status, c.contentRange, c.chunked)
		}
		if !json.Valid(body) {
			t.Errorf("%s: the body is not JSON", c.path)
		}
	}
}

// A streamed answer's header carries the response settings the rows had
// set when it left: a view's function's, and a db-pre-request function's
// before a read of a table, whose rows run nothing that could set them.
func TestStreamedAnswerSettings(t *testing.T) {
	plain, _, _ := streamServer(t, nil)
	pre, _, _ := streamServer(t, map[string]string{"db-pre-request": "stream.pre"})
	for _, c := range []struct{ url, header, want string }{
		{plain + "/marked", "X-Marked", "yes"},
		{pre + "/big", "X-Pre", "yes"},
		{pre + "/marked", "X-Marked", "yes"},
		{plain + "/big", "X-Pre", ""},
	} {
		resp, err := http.Get(c.url)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		if resp.StatusCode != http.StatusOK || resp.ContentLength != -1 || !json.Valid(body) {
			t.Errorf("%s: %s, length %d, valid JSON %v; want 200, streamed", c.url, resp.Status, resp.ContentLength, json.Valid(body))
		}
		if got := resp.Header.Get(c.header); got != c.want {
			t.Errorf("%s: %s %q, want %q", c.url, c.header, got, c.want)
		}
	}
}

// A result past PostgreSQL's largest value (1 GB), which one aggregate
// could never hold, is answered whole.
func TestReadPastOneGigabyte(t *testing.T) {
	if testing.Short() {
		t.Skip("a body of 1.1 GB")
	}
	url, _, _ := streamServer(t, nil)
	resp, err := http.Get(url + "/huge")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d", resp.StatusCode)
	}
	var size, newlines int64
	var first, last []byte
	buf := make([]byte, 1<<20)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if first == nil {
				first = bytes.Clone(buf[:min(n, 64)])
			}
			size += int64(n)
			newlines += int64(bytes.Count(buf[:n], []byte("\n")))
			last = append(last[:0], buf[max(0, n-16):n]...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d bytes: %v", size, err)
		}
	}
	t.Logf("%d bytes", size)
	if size < 1<<30 || newlines != 1100000-1 || !bytes.HasPrefix(first, []byte(`[{"g":1,"pad":"xxx`)) || !bytes.HasSuffix(last, []byte(`xxx"}]`)) {
		t.Fatalf("%d bytes, %d rows after the first, starting %q and ending %q: want over 1 GiB, 1,099,999 and the array whole",
			size, newlines, first, last)
	}
}

// A failure after the header has left cuts the response: the client sees
// the body end before its last chunk, the log says why, and a call's
// write rolls back.
func TestStreamCutOnFailure(t *testing.T) {
	url, out, _ := streamServer(t, map[string]string{"log-level": "error"})
	resp, err := http.Get(url + "/failing")
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("%d, reading the body: %v; want 200 and the body cut (unexpected EOF)", resp.StatusCode, err)
	}

	body := strings.NewReader(`{"note": "cut", "n": 200000}`)
	resp, err = http.Post(url+"/rpc/stream_write?select=id,v::int", "application/json", body)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("%d, reading the body: %v; want the body cut (unexpected EOF)", resp.StatusCode, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	// The log line may reach the test after the client saw the cut.
	for strings.Count(out.String(), "the response is cut") < 2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "division by zero") || !strings.Contains(out.String(), "integer out of range") {
		t.Errorf("the log does not say why the responses were cut:\n%s", out.String())
	}
	var written int
	if err := superConn(t).QueryRow(context.Background(), "select count(*) from stream.writes where note = 'cut'").Scan(&written); err != nil {
		t.Fatal(err)
	}
	if written != 0 {
		t.Errorf("the call whose answer was cut left %d rows written", written)
	}
	// The same call, answered whole, commits.
	resp, err = http.Post(url+"/rpc/stream_write?select=id&limit=1", "application/json", strings.NewReader(`{"note": "whole", "n": 10}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := superConn(t).QueryRow(context.Background(), "select count(*) from stream.writes where note = 'whole'").Scan(&written); err != nil || written != 1 {
		t.Errorf("%d: the call answered whole left %d rows written (%v), want 1", resp.StatusCode, written, err)
	}
}

// Slow clients at twice the pool's size, each reading a large answer a
// kilobyte at a time, hold no more than half of the pool's sessions (the
// share slow clients may hold) past the half second they may lag: small
// reads meanwhile are all answered, none waiting out
// db-pool-acquisition-timeout, two slow answers go on and the others are
// cut.
func TestSlowReadersLeaveThePoolServing(t *testing.T) {
	if testing.Short() {
		t.Skip("eight slow clients")
	}
	url, out, _ := streamServer(t, map[string]string{"db-pool": "4", "server-stream-send-timeout": "60",
		"db-pool-acquisition-timeout": "5", "log-level": "info"})
	addr := strings.TrimPrefix(url, "http://")
	const slow = 8
	var started, cut atomic.Int32
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range slow {
		wg.Go(func() {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			conn.(*net.TCPConn).SetReadBuffer(4096)
			if _, err := conn.Write([]byte("GET /big?order=id HTTP/1.1\r\nHost: svc\r\n\r\n")); err != nil {
				t.Error(err)
				return
			}
			buf := make([]byte, 1024)
			n, err := io.ReadAtLeast(conn, buf, 12)
			if err != nil {
				t.Error(err)
				return
			}
			if status := string(buf[9:12]); status != "200" {
				t.Errorf("a slow client got %s: %q", status, buf[:n])
				return
			}
			started.Add(1)
			for {
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
				if _, err := conn.Read(buf); err != nil {
					cut.Add(1)
					return
				}
			}
		})
	}
	deadline := time.Now().Add(30 * time.Second)
	for started.Load() < slow && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	// The cut answers end where their clients' socket buffers do: wait
	// for the server to have cut them all.
	for strings.Count(out.String(), "read too slowly") < slow-2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	for i := range 40 {
		resp, err := http.Get(url + "/big?id=eq." + strconv.Itoa(i+1))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("small read %d while %d slow clients read: %d", i, started.Load(), resp.StatusCode)
		}
	}
	close(stop)
	wg.Wait()
	n := strings.Count(out.String(), "read too slowly")
	t.Logf("%d slow answers started, %d cut", started.Load(), n)
	if started.Load() != slow || n != slow-2 {
		t.Errorf("%d slow answers started and %d cut, want %d and %d (all but half the pool of 4)", started.Load(), n, slow, slow-2)
	}
}

// A client that stops reading a streamed answer has it cut once a chunk
// waits server-stream-send-timeout, when it holds the one session slow
// clients may hold (the body, 22 MB, is larger than what the sockets'
// buffers take), and its session goes back to the pool: the next large
// read streams.
func TestStalledReaderIsCut(t *testing.T) {
	url, out, _ := streamServer(t, map[string]string{"db-pool": "2", "server-stream-send-timeout": "1", "log-level": "info"})
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET /big?order=id HTTP/1.1\r\nHost: svc\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "read too slowly") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "read too slowly") {
		t.Fatalf("a stalled reader's answer was not cut:\n%s", out.String())
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("reading the stalled answer: %v, want the body cut (unexpected EOF)", err)
	}
	// The one session streams may hold is free again.
	resp, err = http.Get(url + "/big?order=id")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || err != nil || !json.Valid(body) {
		t.Errorf("the next large read: %d, %v", resp.StatusCode, err)
	}
}
