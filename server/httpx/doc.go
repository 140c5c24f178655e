// Package httpx is the HTTP plumbing around the server's pipeline, each
// piece a handler or a wrapper of one that knows nothing of the API: the
// route table (Router), CORS, the bound on a request's URL and the
// recovery from a panic. It must not know the snapshot nor the database.
package httpx
