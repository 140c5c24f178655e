package framing_test

import (
	"bufio"
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/framing"
)

// TestServerCloses: behind framing.Server, net/http's server closes the
// connection after answering a request framed both ways, whatever the
// handler does with the Connection header, and keeps it after a request
// framed one way.
func TestServerCloses(t *testing.T) {
	t.Parallel()
	handlers := map[string]http.HandlerFunc{
		"writes":         func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") },
		"writes nothing": func(w http.ResponseWriter, r *http.Request) {},
		"asks keep-alive": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Connection", "keep-alive")
			io.WriteString(w, "ok")
		},
		"status then body": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(201); io.WriteString(w, "ok") },
		"deletes Connection": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Del("Connection")
			w.WriteHeader(204)
		},
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			srv := framing.NewServer(&http.Server{Handler: h, ErrorLog: log.New(io.Discard, "", 0)})
			go srv.Serve(ln)
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				srv.Shutdown(ctx)
			})
			for _, tc := range []struct {
				framing string
				closes  bool
			}{
				{"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", true},
				{"Transfer-Encoding: chunked\r\n", false},
			} {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(time.Minute)) // against a hang only
				io.WriteString(c, "POST / HTTP/1.1\r\nHost: a\r\n"+tc.framing+"\r\n5\r\nhello\r\n0\r\n\r\n")
				br := bufio.NewReader(c)
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("%q: no answer: %v", tc.framing, err)
				}
				io.Copy(io.Discard, resp.Body)
				io.WriteString(c, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
				_, err = http.ReadResponse(br, nil)
				if closed := err != nil; resp.Close != tc.closes || closed != tc.closes {
					t.Errorf("%q: Connection: close %v, closed %v (%v); want both %v", tc.framing, resp.Close, closed, err, tc.closes)
				}
			}
		})
	}
}
