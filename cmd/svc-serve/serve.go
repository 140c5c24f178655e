package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/svc-dev/svc/server"
	"github.com/svc-dev/svc/server/config"
)

// serve runs the server until SIGINT or SIGTERM, with the configuration
// sources produce (re-read on `reload config`) and cfg, their result
// without the database's part. ready, when not nil, is called with the
// listening address once requests can be served.
func serve(ctx context.Context, sources config.Sources, cfg *config.Config, log *slog.Logger, ready func(addr string)) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	// The JWT settings are checked first: a mistyped key should not wait
	// for the database to be reachable to be reported.
	jwt, err := server.NewVerifier(ctx, cfg)
	if err != nil {
		return err
	}
	jwt.Close()
	cfg, err = server.ResolveConfig(ctx, sources, log)
	if err != nil {
		return err
	}

	pool, err := server.NewPool(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()

	snaps := server.NewSnapshots(server.SourceFor(cfg), log)
	if err := snaps.Reload(ctx); err != nil {
		if _, file := snaps.Source().(server.FileSource); file {
			return err
		}
		// The database is away: serve 503 (SVC002) until a snapshot loads,
		// rather than exit and leave the restart to a supervisor.
		log.Error("no schema snapshot yet; answering 503 and retrying", "error", err)
		go snaps.LoadRetrying(ctx, 10*time.Second)
	}
	rt, err := server.NewRuntime(ctx, sources, cfg, pool, snaps, log)
	if err != nil {
		return err
	}
	defer rt.Close()
	if cfg.DBChannelEnabled {
		l := &server.Listener{URI: cfg.DirectURI(), Channel: cfg.DBChannel, Snapshots: snaps, Log: log,
			OnConfigReload: func(ctx context.Context) { rt.ReloadConfig(ctx) }}
		go l.Run(ctx)
	}

	ln, err := listen(ctx, cfg)
	if err != nil {
		return err
	}
	httpServer := &http.Server{Handler: rt, ReadHeaderTimeout: 10 * time.Second}
	log.Info("listening", "address", ln.Addr().String())
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- httpServer.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := httpServer.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newLogger maps PostgREST's log levels onto slog's.
func newLogger(level string) *slog.Logger {
	l := slog.LevelError
	switch level {
	case "crit":
		l = slog.LevelError + 4
	case "warn":
		l = slog.LevelWarn
	case "info":
		l = slog.LevelInfo
	case "debug":
		l = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}
