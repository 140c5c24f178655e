package server_test

import (
	"context"
	"testing"

	"github.com/svc-dev/svc/server/config"
)

// BenchmarkServeRoot326 answers GET / over a schema the size of
// PostgREST's big test schema: 326 relations (250 tables, 76 views) and
// 100 functions (catalog.SyntheticSchemaSQL), as the anonymous role, in
// each version of the description. "built" builds the document for every
// request (openapi-cache-max-bytes = 0: what the first request after a
// snapshot swap costs), "kept" serves the one openapi.Cache keeps. As
// BenchmarkServeRootLarge: one client on one connection, cpu-ns/op the
// process's CPU time per request.
func BenchmarkServeRoot326(b *testing.B) {
	uri, err := loadSyntheticSchema(context.Background(), "root_326", 250, 76, 100)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name     string
		maxBytes int
	}{{"kept", config.Default().OpenAPICacheMaxBytes}, {"built", 0}} {
		url := syntheticSchemaServer(b, uri, bc.maxBytes)
		for _, v := range []struct{ name, accept string }{
			{"2.0", "application/openapi+json"},
			{"3.1", "application/openapi+json;version=3.1"},
		} {
			b.Run(v.name+"/"+bc.name, func(b *testing.B) { benchServeRoot(b, url, v.accept) })
		}
	}
}
