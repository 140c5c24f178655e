package server_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	neturl "net/url"
	"strings"
	"testing"
	"time"
)

// TestFunctionsCannotFrame: a function chooses headers three ways
// (response.headers, RAISE SQLSTATE 'SVC00' with a DETAIL, or 'PGRST'
// under compat-names = postgrest, a media type handler), and none may set a field that frames the message or governs
// the connection. Such a header would decide where the answer ends (a
// Content-Length of 0 loses the body, one too long holds the connection
// until the client gives up) or whether the connection stays, so the
// next pipelined request would be read from the wrong place or never
// answered. Each is refused as any header HTTP cannot carry as set is,
// the function's headers withheld, and the request pipelined behind it
// is answered.
func TestFunctionsCannotFrame(t *testing.T) {
	headers := []struct{ name, value string }{
		{"Content-Length", "0"},
		{"Content-Length", "5"},
		{"content-length", "9999"},
		{"Transfer-Encoding", "chunked"},
		{"Connection", "close"},
		{"Connection", "keep-alive"},
		{"Keep-Alive", "timeout=5"},
		{"Proxy-Connection", "close"},
		{"TE", "trailers"},
		{"Trailer", "X-Checksum"},
		{"Upgrade", "h2c"},
	}
	call := func(fn string) func(name, value string) string {
		return func(name, value string) string {
			return "GET /rpc/" + fn + "?name=" + neturl.QueryEscape(name) + "&value=" + neturl.QueryEscape(value) +
				" HTTP/1.1\r\nHost: svc\r\n\r\n"
		}
	}
	// How each way of setting a header sends it, to which server, and
	// the code that refuses it: a custom error's fields are refused with
	// SVC121, as a custom error's other unsendable headers are. PostgREST's
	// SQLSTATE is read under its names, by a server of its own.
	pgrst := processWith(t, map[string]string{"compat-names": "postgrest"})
	ways := []struct {
		name, base, code string
		request          func(name, value string) string
	}{
		{"response.headers", fixture.url, "SVC111", call("set_header")},
		{"RAISE", fixture.url, "SVC121", call("raise_header")},
		{"RAISE PGRST", pgrst, "PGRST121", call("raise_header_pgrst")},
		{"media handler", fixture.url, "SVC111", func(name, value string) string {
			return "GET /mh_notes HTTP/1.1\r\nHost: svc\r\nAccept: text/x-framing\r\n" +
				"X-Framing-Name: " + name + "\r\nX-Framing-Value: " + value + "\r\n\r\n"
		}},
	}
	for _, way := range ways {
		for _, h := range headers {
			t.Run(way.name+"/"+h.name+": "+h.value, func(t *testing.T) {
				t.Parallel()
				c := dialServer(t, way.base)
				// Only so that a broken server fails the test rather
				// than hangs it; nothing here waits on a clock.
				c.SetDeadline(time.Now().Add(time.Minute))
				io.WriteString(c, way.request(h.name, h.value)+"GET /rpc/whoami HTTP/1.1\r\nHost: svc\r\n\r\n")
				br := bufio.NewReader(c)
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("no answer: %v", err)
				}
				body, err := io.ReadAll(resp.Body)
				if err != nil {
					t.Fatalf("reading the answer: %v", err)
				}
				var e struct{ Code, Details, Hint string }
				if json.Unmarshal(body, &e) != nil || resp.StatusCode != 500 || e.Code != way.code {
					t.Fatalf("answered %d %q, want 500 %s", resp.StatusCode, body, way.code)
				}
				if !strings.Contains(e.Details+e.Hint, h.name) {
					t.Errorf("the error does not name the header %s: %s", h.name, body)
				}
				if resp.Close || resp.Header.Get("Keep-Alive") != "" || resp.Header.Get("Upgrade") != "" ||
					resp.Header.Get("Trailer") != "" || resp.Header.Get("Proxy-Connection") != "" {
					t.Errorf("the function's header went out: %v", resp.Header)
				}
				next, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("the pipelined request was not answered: %v", err)
				}
				got, _ := io.ReadAll(next.Body)
				if next.StatusCode != 200 || strings.TrimSpace(string(got)) != `"web_anon"` {
					t.Errorf("the pipelined request was answered %d %q, want 200 \"web_anon\"", next.StatusCode, got)
				}
			})
		}
	}
}
