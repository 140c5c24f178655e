package server

import (
	"context"
	"log/slog"
	"net"
	"net/http"

	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/http1"
)

// HTTPServer serves a handler on listeners until shut down.
type HTTPServer interface {
	Serve(ln net.Listener) error
	Shutdown(ctx context.Context) error
}

// NewHTTPServer returns SVC's HTTP/1.1 server (package http1) for h, with
// the configured limits and timeouts (config.HTTPServer). It answers the
// wire as net/http's server does (http1's conformance test compares them)
// with less work per request, and notices a client that leaves while its
// request runs whatever else the client sent. It is the only server:
// deploy/bench's variant rounds on the split topology, paced and unpaced,
// decided against net/http's (RESULTS.md).
func NewHTTPServer(cfg *config.Config, h http.Handler, log *slog.Logger) HTTPServer {
	return http1.New(cfg.HTTPServer(h), log)
}
