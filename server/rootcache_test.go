package server_test

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/svc-dev/svc/server"
)

// TestRootDocumentBuiltOnce: GET / builds the document once per snapshot,
// schema and set of privileges, however many ask, at once or one after
// another; a reload frees the documents of the snapshot it replaces at
// once, and the next GET / describes the new one.
func TestRootDocumentBuiltOnce(t *testing.T) {
	const secret = "a-root-cache-test-secret-of-32-characters"
	ctx := context.Background()
	cfg := *fixture.cfg
	cfg.JWTSecret = secret
	srv, snaps, err := startServer(ctx, &cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	docs := server.RootDocs(srv.handler.(*server.Server))
	builds := func() uint64 { return docs.Builds() }
	start := builds()

	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		})
	}
	wg.Wait()
	first := fetchRoot(t, srv.URL, "", "")
	if again := fetchRoot(t, srv.URL, "", ""); !bytes.Equal(again, first) {
		t.Error("the kept document differs from the first one served")
	}
	head, err := http.Head(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	head.Body.Close()
	if got := builds() - start; got != 1 {
		t.Errorf("9 requests of the anonymous role: %d builds, want 1", got)
	}
	fetchRoot(t, srv.URL, "", "other")
	token, err := mintTokens(`Bearer {{jwt {"role":"web_user"}}}`, secret)
	if err != nil {
		t.Fatal(err)
	}
	fetchRoot(t, srv.URL, token, "")
	fetchRoot(t, srv.URL, token, "")
	if got := builds() - start; got != 3 {
		t.Errorf("after another schema and another role: %d builds, want 3", got)
	}

	db := superConn(t)
	if _, err := db.Exec(ctx, "create table test.root_cache_probe (id int primary key); grant select on test.root_cache_probe to web_anon"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec(context.Background(), "drop table test.root_cache_probe") })
	if err := snaps.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if docs.Len() != 0 || docs.Bytes() != 0 {
		t.Errorf("after the reload, before any request: %d documents, %d bytes kept; want none", docs.Len(), docs.Bytes())
	}
	doc := decodeRoot(t, fetchRoot(t, srv.URL, "", ""))
	if doc.methods("/root_cache_probe") == nil {
		t.Error("after the reload GET / does not describe the table created before it")
	}
	if got := builds() - start; got != 4 {
		t.Errorf("after the reload: %d builds, want 4", got)
	}
}
