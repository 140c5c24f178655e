package server

import (
	"context"
	"log/slog"
	"net"
	"net/http"

	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/framing"
	"github.com/svc-dev/svc/server/http1"
)

// HTTPServer serves a handler on listeners until shut down:
// framing.Server (net/http's) and *http1.Server both are one.
type HTTPServer interface {
	Serve(ln net.Listener) error
	Shutdown(ctx context.Context) error
}

// NewHTTPServer returns the server server-http names for h, with the
// configured limits and timeouts (config.HTTPServer). Both answer the
// wire alike (http1's conformance test compares them) and run the same
// handler. What only http1 does: a client that leaves while a request
// runs is noticed whatever else it sent (net/http stops watching the
// connection once the client has sent a byte past its request, which it
// keeps for the next one), and the watch starts only once a request has
// run for a while. net/http is the default: on the load benchmark's
// split topology (deploy/bench/run.sh, TOPOLOGY=split) http1 did not save
// the tenth of SVC's CPU per request that would justify running a server
// of our own by default (deploy/bench/RESULTS.md). server-raw-sockets
// reaches client connections under http1 only: net/http owns its
// connections' reads and writes.
func NewHTTPServer(cfg *config.Config, h http.Handler, log *slog.Logger) HTTPServer {
	hs := cfg.HTTPServer(h)
	if cfg.ServerHTTP == config.HTTPServerHTTP1 {
		srv := http1.New(hs, log)
		srv.RawSockets = cfg.ServerRawSockets
		return srv
	}
	if log != nil {
		// What net/http's server logs (accept errors, a client's TLS or
		// protocol trouble) goes to SVC's log, not to stderr alone.
		hs.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	}
	// net/http keeps a connection open after a request framed both by
	// Content-Length and Transfer-Encoding, where RFC 9112 requires it
	// closed (http1 closes it too).
	return framing.NewServer(hs)
}
