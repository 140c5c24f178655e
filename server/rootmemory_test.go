package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
)

// rootMemorySchema is the database of TestRootDocumentInBoundedMemory:
// SyntheticSchemaSQL of 3,000 tables, 600 views and 600 functions, whose
// documents (about 10 MB in Swagger 2.0, 22 MB in OpenAPI 3.1) are over a
// hundred times the response buffer the test sets.
var rootMemorySchema = sync.OnceValues(func() (string, error) {
	return loadSyntheticSchema(context.Background(), "root_memory", 3000, 600, 600)
})

// TestRootDocumentInBoundedMemory: GET / of a large schema, sixteen at
// once in both versions, keeps svc-serve within its idle memory and the
// bodies' budget (server-response-buffers-max-bytes, 64 MiB), whether the
// document is built for each request and streamed (no cache: chunked
// past the response buffer) or kept compressed (a cache smaller than the
// document: decompressed as it is sent, with its length); every client
// gets the whole document, the same bytes.
func TestRootDocumentInBoundedMemory(t *testing.T) {
	skipUnlessProcMemory(t, "loads a schema of 3,600 relations and 600 functions and sends 64 GET / of documents of tens of MB")
	uri, err := rootMemorySchema()
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(uri)
	u.User = url.User("authenticator")
	for _, c := range []struct {
		name string
		// cache is openapi-cache-max-bytes; chunked says the answer
		// has no Content-Length.
		cache   string
		chunked bool
	}{{"built for each request", "0", true}, {"kept compressed", "4194304", false}} {
		t.Run(c.name, func(t *testing.T) {
			url, _, cmd := processCmdWith(t, map[string]string{"db-uri": u.String(), "db-schemas": "synth",
				"db-anon-role": "web_anon", "db-channel-enabled": "false",
				"server-response-buffer-bytes": "65536", "openapi-cache-max-bytes": c.cache})
			pid := cmd.Process.Pid
			mustGet(t, url+"/t1?id=eq.1")
			idle := procField(t, pid, "status", "VmRSS")

			for round := range 2 { // the second is served by what the first left
				bodies := map[string][][]byte{}
				var mu sync.Mutex
				var wg sync.WaitGroup
				for i := range 16 {
					accept := "application/openapi+json"
					if i%2 == 1 {
						accept = "application/openapi+json;version=3.1"
					}
					wg.Go(func() {
						req, _ := http.NewRequest(http.MethodGet, url+"/", nil)
						req.Header.Set("Accept", accept)
						resp, err := http.DefaultClient.Do(req)
						if err != nil {
							t.Error(err)
							return
						}
						defer resp.Body.Close()
						body, err := io.ReadAll(resp.Body)
						if err != nil {
							t.Errorf("%s: %v after %d bytes", accept, err, len(body))
							return
						}
						if resp.StatusCode != http.StatusOK || (resp.ContentLength == -1) != c.chunked {
							t.Errorf("%s: %d, length %d; want 200, chunked %v", accept, resp.StatusCode, resp.ContentLength, c.chunked)
						}
						mu.Lock()
						bodies[accept] = append(bodies[accept], body)
						mu.Unlock()
					})
				}
				wg.Wait()
				for accept, bs := range bodies {
					checkRootDocument(t, accept, bs, 65536)
				}
				peak := procField(t, pid, "status", "VmHWM")
				t.Logf("round %d: svc-serve %d MiB idle, %d MiB at its peak, for 16 documents of %d and %d MB", round, idle>>20, peak>>20,
					len(bodies["application/openapi+json"][0])/1e6, len(bodies["application/openapi+json;version=3.1"][0])/1e6)
				if grown := peak - idle; grown > 64<<20 {
					t.Errorf("svc-serve grew by %d MiB past its idle %d MiB, more than the bodies' budget of 64 MiB", grown>>20, idle>>20)
				}
			}
		})
	}
}

// checkRootDocument checks the documents clients got of one version:
// far larger than the response buffer, all the same, describing all of
// the synthetic schema (a path per relation and function, and the root).
func checkRootDocument(t *testing.T, accept string, bodies [][]byte, buffer int) {
	t.Helper()
	if len(bodies[0]) < 100*buffer {
		t.Fatalf("%s: a document of %d bytes tests nothing", accept, len(bodies[0]))
	}
	for i, b := range bodies[1:] {
		if string(b) != string(bodies[0]) {
			t.Errorf("%s: document %d differs from the first (%d and %d bytes)", accept, i+1, len(b), len(bodies[0]))
		}
	}
	var doc struct {
		Paths map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(bodies[0], &doc); err != nil {
		t.Fatalf("%s: not a JSON document: %v", accept, err)
	}
	if want := 1 + 3000 + 600 + 600; len(doc.Paths) != want {
		t.Errorf("%s: %d paths, want %s", accept, len(doc.Paths), strconv.Itoa(want))
	}
}
