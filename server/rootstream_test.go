package server_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestRootDocumentStreamed: a document the cache does not keep is
// written as it is built: chunked past server-response-buffer-bytes,
// whole with its Content-Length within it, HEAD with its length; either
// way the bytes of the document kept, for each role (what it describes
// follows the role's privileges) and version.
func TestRootDocumentStreamed(t *testing.T) {
	const secret = "a-root-stream-test-secret-of-32-characters"
	ctx := context.Background()
	start := func(cache, buffer int) string {
		cfg := *fixture.cfg
		cfg.JWTSecret = secret
		cfg.OpenAPICacheMaxBytes = cache
		cfg.ServerResponseBufferBytes = buffer
		srv, _, err := startServer(ctx, &cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Close)
		return srv.URL
	}
	kept := start(32<<20, 1<<20)
	streamed := start(0, 64<<10)
	whole := start(0, 1<<20)
	user, err := mintTokens(`Bearer {{jwt {"role":"web_user"}}}`, secret)
	if err != nil {
		t.Fatal(err)
	}
	get := func(method, base, accept, auth string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, base+"/", nil)
		req.Header.Set("Accept", accept)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %s as %q: %d, %v", method, accept, auth, resp.StatusCode, err)
		}
		return resp, body
	}
	docs := map[string]bool{}
	for _, accept := range []string{"application/openapi+json", "application/openapi+json;version=3.1"} {
		for _, auth := range []string{"", user} {
			name := accept + " as " + map[string]string{"": "anon", user: "web_user"}[auth]
			resp, want := get(http.MethodGet, kept, accept, auth)
			if resp.ContentLength != int64(len(want)) {
				t.Errorf("%s, kept: length %d, want %d", name, resp.ContentLength, len(want))
			}
			if len(want) <= 64<<10 || len(want) > 1<<20 {
				t.Fatalf("%s: a document of %d bytes, not past 64 KiB and within 1 MiB, tests nothing", name, len(want))
			}
			docs[string(want)] = true
			resp, got := get(http.MethodGet, streamed, accept, auth)
			if resp.ContentLength != -1 || string(got) != string(want) {
				t.Errorf("%s, built past the buffer: length %d, %d bytes; want chunked, the %d bytes kept", name, resp.ContentLength, len(got), len(want))
			}
			resp, got = get(http.MethodGet, whole, accept, auth)
			if resp.ContentLength != int64(len(want)) || string(got) != string(want) {
				t.Errorf("%s, built within the buffer: length %d, %d bytes; want the %d bytes kept", name, resp.ContentLength, len(got), len(want))
			}
			// A HEAD says no length, as PostgREST's and a relation's do,
			// and builds nothing only to measure it.
			for _, server := range []string{kept, streamed} {
				resp, got = get(http.MethodHead, server, accept, auth)
				if resp.ContentLength != -1 || len(got) != 0 || resp.Header.Get("Content-Type") == "" {
					t.Errorf("%s, HEAD: length %d, %d bytes, type %q; want no length, no body and the type", name,
						resp.ContentLength, len(got), resp.Header.Get("Content-Type"))
				}
			}
		}
	}
	if len(docs) != 4 {
		t.Errorf("%d distinct documents for two roles in two versions, want 4", len(docs))
	}
}

// TestRootDocumentCutWhenStalled: a client that stops reading the
// document has it cut once a chunk waits server-stream-send-timeout (the
// 3.1 document of the synthetic schema, 22 MB, is larger than the
// sockets' buffers take): it sees the body incomplete, whether the
// document was built for it (chunked) or kept compressed (sent with its
// length), and the log says why.
func TestRootDocumentCutWhenStalled(t *testing.T) {
	skipUnlessProcMemory(t, "loads a schema of 3,600 relations and 600 functions")
	uri, err := rootMemorySchema()
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(uri)
	u.User = url.User("authenticator")
	for _, cache := range []string{"0", "4194304"} {
		t.Run("openapi-cache-max-bytes="+cache, func(t *testing.T) {
			base, out, _ := processCmdWith(t, map[string]string{"db-uri": u.String(), "db-schemas": "synth",
				"db-anon-role": "web_anon", "db-channel-enabled": "false", "openapi-cache-max-bytes": cache,
				"server-stream-send-timeout": "1", "log-level": "info"})
			if cache != "0" {
				mustGet(t, base+"/") // the 2.0 document, so that the 3.1 one is not the first build
			}
			conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.Write([]byte("GET / HTTP/1.1\r\nHost: svc\r\nAccept: application/openapi+json;version=3.1\r\n\r\n")); err != nil {
				t.Fatal(err)
			}
			const said = "read the root document too slowly"
			deadline := time.Now().Add(60 * time.Second)
			for !strings.Contains(out.String(), said) && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if !strings.Contains(out.String(), said) {
				t.Fatalf("a stalled reader's document was not cut:\n%s", out.String())
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			n, err := io.Copy(io.Discard, resp.Body)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("reading the stalled document (length %d): %v after %d bytes, want it cut (unexpected EOF)", resp.ContentLength, err, n)
			}
		})
	}
}
