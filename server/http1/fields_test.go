package http1_test

import (
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/http1"
)

// fieldSetter is http1's ResponseWriter's way to take header fields apart
// from the map (httpx.FieldSetter).
type fieldSetter interface {
	SetField(name, value string, keep bool) bool
}

// fieldsHandler sets fields apart from the map as each path says, and
// fails the request (500) when SetField or Field answers otherwise than
// the path expects.
func fieldsHandler() http.Handler {
	mux := http.NewServeMux()
	check := func(w http.ResponseWriter, ok bool, what string) bool {
		if !ok {
			http.Error(w, what, http.StatusInternalServerError)
		}
		return ok
	}
	mux.HandleFunc("/fields", func(w http.ResponseWriter, r *http.Request) {
		f, ok := w.(fieldSetter)
		if !check(w, ok, "not a field setter") {
			return
		}
		w.Header()["X-Map"] = []string{"m"}
		set := f.SetField("X-Fast", "f1", false) && f.SetField("X-Fast", "f2", false) &&
			f.SetField("X-Keep", "k1", true) && f.SetField("X-Keep", "k2", true) &&
			f.SetField("Content-Type", "text/plain", true) && f.SetField("X-Break", " a\r\nb ", false)
		refused := !f.SetField("Content-Length", "99", false) && !f.SetField("Date", "x", false) &&
			!f.SetField("Connection", "close", false) && !f.SetField("Bad Name", "x", false) &&
			!f.SetField("Transfer-Encoding", "chunked", true)
		if check(w, set && refused, "SetField answered wrong") {
			io.WriteString(w, "hello")
		}
	})
	mux.HandleFunc("/mapwins", func(w http.ResponseWriter, r *http.Request) {
		w.(fieldSetter).SetField("X-Both", "field", false)
		w.Header()["X-Both"] = []string{"map"}
		io.WriteString(w, "hello")
	})
	mux.HandleFunc("/notmodified", func(w http.ResponseWriter, r *http.Request) {
		w.(fieldSetter).SetField("Content-Type", "text/plain", false)
		w.WriteHeader(http.StatusNotModified)
	})
	mux.HandleFunc("/nosniff", func(w http.ResponseWriter, r *http.Request) {
		w.(fieldSetter).SetField("Content-Type", "application/x-thing", false)
		io.WriteString(w, "<html>hello</html>")
	})
	mux.HandleFunc("/many", func(w http.ResponseWriter, r *http.Request) {
		f := w.(fieldSetter)
		taken := 0
		for i := range 10 {
			if f.SetField("X-F"+strconv.Itoa(i), "v", false) {
				taken++
			} else {
				w.Header()["X-F"+strconv.Itoa(i)] = []string{"m"}
			}
		}
		io.WriteString(w, strconv.Itoa(taken))
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "plain") })
	return mux
}

// readHead reads a response's status line and header lines, Date left
// out, and its body of Content-Length bytes.
func readHead(t *testing.T, cc *clientConn) (lines []string, body string) {
	t.Helper()
	cc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	length := 0
	for {
		line, err := cc.br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the head: %v", err)
		}
		line = strings.TrimSuffix(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			length, _ = strconv.Atoi(v)
		}
		if !strings.HasPrefix(line, "Date: ") {
			lines = append(lines, line)
		}
	}
	b := make([]byte, length)
	if _, err := io.ReadFull(cc.br, b); err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	return lines, string(b)
}

// TestSetFieldWritesFieldsAfterTheMap: fields set apart from the map are
// written after the map's, in the order set, a later value replacing an
// earlier unless set to keep it; their line breaks are made spaces as the map's are; the names
// the server decides and invalid names are refused; the map wins over a
// field of its name; a Content-Type set so is not sniffed over, nor sent
// with a 304; past eight fields the caller is sent to the map; and the
// next request on the connection starts with none.
func TestSetFieldWritesFieldsAfterTheMap(t *testing.T) {
	addr, _ := startHTTP1(t, &http1.Server{Handler: fieldsHandler()})
	cc := newClientConn(t, addr)
	for _, tc := range []struct {
		path  string
		lines []string
		body  string
	}{
		{"/fields", []string{"HTTP/1.1 200 OK", "Content-Length: 5", "X-Map: m", "X-Fast: f2", "X-Keep: k1", "Content-Type: text/plain", "X-Break: a  b"}, "hello"},
		{"/mapwins", []string{"HTTP/1.1 200 OK", "Content-Length: 5", "Content-Type: text/plain; charset=utf-8", "X-Both: map"}, "hello"},
		{"/notmodified", []string{"HTTP/1.1 304 Not Modified"}, ""},
		{"/nosniff", []string{"HTTP/1.1 200 OK", "Content-Length: 18", "Content-Type: application/x-thing"}, "<html>hello</html>"},
		{"/many", []string{"HTTP/1.1 200 OK", "Content-Length: 1", "Content-Type: text/plain; charset=utf-8", "X-F8: m", "X-F9: m",
			"X-F0: v", "X-F1: v", "X-F2: v", "X-F3: v", "X-F4: v", "X-F5: v", "X-F6: v", "X-F7: v"}, "8"},
		{"/plain", []string{"HTTP/1.1 200 OK", "Content-Length: 5", "Content-Type: text/plain; charset=utf-8"}, "plain"},
	} {
		cc.write("GET " + tc.path + " HTTP/1.1\r\nHost: a\r\n\r\n")
		lines, body := readHead(t, cc)
		if !slices.Equal(lines, tc.lines) || body != tc.body {
			t.Errorf("%s: answered\n%q %q\nwant\n%q %q", tc.path, lines, body, tc.lines, tc.body)
		}
	}
}
