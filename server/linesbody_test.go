package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// linesBody writes n JSON Lines rows of stream.loaded from id first on,
// then tail (a last line, or ""), as a client streams a body it never
// holds whole.
func linesBody(first, n int, tail string) io.Reader {
	r, w := io.Pipe()
	go func() {
		buf := make([]byte, 0, 64<<10)
		for id := first; id < first+n; id++ {
			buf = fmt.Appendf(buf, `{"id": %d, "a": "row %d of the load", "b": %d}`+"\n", id, id, id%97)
			if len(buf) > 60<<10 {
				if _, err := w.Write(buf); err != nil {
					return
				}
				buf = buf[:0]
			}
		}
		buf = append(buf, tail...)
		w.Write(buf)
		w.Close()
	}()
	return r
}

// postLines posts body as JSON Lines to url with the Prefer header given.
func postLines(t *testing.T, url, prefer string, body io.Reader) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	if prefer != "" {
		req.Header.Set("Prefer", prefer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	return resp, got, err
}

func countRows(t *testing.T, sql string) int {
	t.Helper()
	var n int
	if err := superConn(t).QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A JSON Lines insert of a million rows (57 MB, seven times
// server-max-body-bytes) is read a batch at a time while its transaction
// runs: svc-serve stays within its idle memory and the bodies' budget,
// and every row commits; the same load whose last line fails commits
// none.
func TestJSONLinesInsertInBoundedMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads svc-serve's memory from /proc, which only Linux has")
	}
	if testing.Short() {
		t.Skip("two loads of a million rows")
	}
	url, _, pid := streamServer(t, nil)
	mustGet(t, url+"/loaded?id=eq.0")
	idle := procField(t, pid, "status", "VmRSS")

	resp, got, err := postLines(t, url+"/loaded", "", linesBody(1, 1_000_000, ""))
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("%d %s (%v), want 201", resp.StatusCode, got, err)
	}
	peak := procField(t, pid, "status", "VmHWM")
	t.Logf("svc-serve: %d MiB idle, %d MiB at its peak, for a million rows", idle>>20, peak>>20)
	if grown := peak - idle; grown > 64<<20 {
		t.Errorf("svc-serve grew by %d MiB past its idle %d MiB, more than the bodies' budget of 64 MiB", grown>>20, idle>>20)
	}
	if n := countRows(t, "select count(*) from stream.loaded where id between 1 and 1000000"); n != 1_000_000 {
		t.Fatalf("%d rows loaded, want 1,000,000", n)
	}

	bad := `{"id": 2000001, "a": "the last", "b": "not a number"}` + "\n"
	resp, got, err = postLines(t, url+"/loaded", "", linesBody(1_000_001, 999_999, bad))
	if err != nil || resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(got), `"22P02"`) {
		t.Fatalf("%d %s (%v), want 400 22P02", resp.StatusCode, got, err)
	}
	if n := countRows(t, "select count(*) from stream.loaded where id > 1000000"); n != 0 {
		t.Errorf("the load whose last line failed left %d rows", n)
	}
}

// Rows of a JSON Lines body must all have the first row's keys, wherever
// they are in the body; an upsert over batches says whether it inserted
// any row (201) or only updated (200); a small body is answered as a JSON
// array body is.
func TestJSONLinesInsertAnswers(t *testing.T) {
	url, _, _ := streamServer(t, nil)
	tail := `{"id": 3000001, "a": "other keys"}` + "\n"
	resp, got, _ := postLines(t, url+"/loaded", "", linesBody(3_000_000, 100_000, "")) // a key taken, see below
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("%d %s, want 201", resp.StatusCode, got)
	}
	resp, got, _ = postLines(t, url+"/loaded", "", linesBody(3_100_000, 100_000, tail))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(got), "All object keys must match") {
		t.Errorf("%d %s, want 400: All object keys must match", resp.StatusCode, got)
	}
	merge := "resolution=merge-duplicates"
	if resp, got, _ = postLines(t, url+"/loaded", merge, linesBody(3_000_000, 100_000, "")); resp.StatusCode != http.StatusOK {
		t.Errorf("an upsert that only updated: %d %s, want 200", resp.StatusCode, got)
	}
	last := `{"id": 3200000, "a": "new", "b": 1}` + "\n"
	if resp, got, _ = postLines(t, url+"/loaded", merge, linesBody(3_000_000, 100_000, last)); resp.StatusCode != http.StatusCreated {
		t.Errorf("an upsert that inserted its last row: %d %s, want 201", resp.StatusCode, got)
	}
	resp, got, _ = postLines(t, url+"/loaded?select=id,a", "return=representation", strings.NewReader("{\"id\": 3300000, \"a\": \"x\", \"b\": 1}\n\n{\"id\": 3300001, \"a\": \"y\", \"b\": 2}"))
	want := "[{\"id\":3300000,\"a\":\"x\"}, \n {\"id\":3300001,\"a\":\"y\"}]"
	if resp.StatusCode != http.StatusCreated || string(got) != want || resp.ContentLength != int64(len(want)) {
		t.Errorf("%d (length %d) %s, want 201 %s", resp.StatusCode, resp.ContentLength, got, want)
	}
	if n := countRows(t, "select count(*) from stream.loaded where id >= 3000000"); n != 100_003 {
		t.Errorf("%d rows, want 100,003", n)
	}
}

// A write's representation past the response buffer streams as a read's
// does; when the commit then fails (a deferred key), the answer is cut,
// never whole, and nothing is written.
func TestLargeWriteRepresentationStreams(t *testing.T) {
	url, out, _ := streamServer(t, map[string]string{"log-level": "error"})
	resp, got, err := postLines(t, url+"/loaded?select=id", "return=representation", linesBody(4_000_000, 200_000, ""))
	if err != nil || resp.StatusCode != http.StatusCreated || resp.ContentLength != -1 || resp.Header.Get("Content-Range") != "*/*" {
		t.Fatalf("%d, length %d, Content-Range %q (%v): want 201, chunked, */*", resp.StatusCode, resp.ContentLength, resp.Header.Get("Content-Range"), err)
	}
	if n := strings.Count(string(got), `{"id":`); n != 200_000 || !strings.HasSuffix(string(got), "}]") {
		t.Errorf("the representation has %d rows, want 200,000 in a whole array", n)
	}
	req, _ := http.NewRequest(http.MethodPatch, url+"/loaded?id=gte.4000000&select=id,b", strings.NewReader(`{"b": 0}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Prefer", "return=representation")
	presp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err = io.ReadAll(presp.Body)
	presp.Body.Close()
	if err != nil || presp.StatusCode != http.StatusOK || presp.Header.Get("Content-Range") != "0-*/*" || strings.Count(string(got), `"b":0`) != 200_000 {
		t.Errorf("PATCH: %d, Content-Range %q, %d rows (%v): want 200, 0-*/*, 200,000 rows", presp.StatusCode, presp.Header.Get("Content-Range"), strings.Count(string(got), `"b":0`), err)
	}

	dup := `{"id": 5000000, "a": "the first row's key again"}` + "\n"
	body := io.MultiReader(deferredRows(200_000), strings.NewReader(dup))
	resp, _, err = postLines(t, url+"/deferred?select=id,a", "return=representation", body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("%d, reading the body: %v; want the body cut (unexpected EOF)", resp.StatusCode, err)
	}
	if n := countRows(t, "select count(*) from stream.deferred"); n != 0 {
		t.Errorf("the write whose commit failed left %d rows", n)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "the response is cut") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "23505") && !strings.Contains(out.String(), "duplicate key") {
		t.Errorf("the log does not say why the response was cut:\n%s", out.String())
	}
}

// deferredRows writes n rows of stream.deferred from id 5,000,000 on.
func deferredRows(n int) io.Reader {
	var b strings.Builder
	for id := 5_000_000; id < 5_000_000+n; id++ {
		fmt.Fprintf(&b, `{"id": %d, "a": "row %d"}`+"\n", id, id)
	}
	return strings.NewReader(b.String())
}
