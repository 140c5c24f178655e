package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/logging"
)

// startAdmin serves the admin handler on admin-server-host and
// admin-server-port (with SO_REUSEPORT under server-reuseport, so a new
// process can take over its port as it does the API's). It returns a
// function that shuts it down, draining requests until ctx ends.
func startAdmin(ctx context.Context, cfg *config.Config, handler http.Handler, log *slog.Logger) (stop func(ctx context.Context), err error) {
	ln, err := listenTCP(ctx, cfg.ServerReuseport, cfg.AdminListenNetwork(), cfg.AdminListenAddr())
	if err != nil {
		return nil, err
	}
	srv := cfg.HTTPServer(handler)
	log.Log(ctx, logging.LevelNotice, "admin server listening", "address", ln.Addr().String())
	go srv.Serve(ln)
	return func(ctx context.Context) { srv.Shutdown(ctx) }, nil
}
