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
	"github.com/svc-dev/svc/server/admin"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/gcheadroom"
	"github.com/svc-dev/svc/server/logging"
	"github.com/svc-dev/svc/server/memlimit"
	"github.com/svc-dev/svc/server/naming"
	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/server/txroute"
)

// serve runs the server until SIGINT or SIGTERM, with the configuration
// sources produce (re-read on `reload config`) and cfg, their result
// without the database's part. ready, when not nil, is called with the
// listening address once requests can be served.
func serve(ctx context.Context, sources config.Sources, cfg *config.Config, log *slog.Logger, ready func(addr string)) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	logStart(ctx, log, sources, cfg)
	if limit := memlimit.Limit(); limit > 0 {
		log.Info("memory limit of the cgroup found", "limit", limit, "go soft limit (GOMEMLIMIT)", memlimit.Apply(limit),
			"response buffers (server-response-buffers-max-bytes)", server.BodiesMax(cfg, limit))
	}
	go gcheadroom.Run(ctx, uint64(cfg.ServerGCHeadroom), server.Quiet)
	// The JWT settings are checked first: a mistyped key should not wait
	// for the database to be reachable to be reported. Checked only: the
	// Runtime builds the verifier, and fetches a JWKS once.
	if err := server.CheckJWTConfig(cfg); err != nil {
		return err
	}
	cfg, err := reload.ResolveConfig(ctx, sources, log)
	if err != nil {
		return err
	}
	// Advice only, so it neither delays the start nor stops it.
	go reload.NoteDatabaseTraces(ctx, apierr.NamingOf(cfg.CompatNames), cfg.DirectURI(), log)

	pool, err := dbexec.NewPool(ctx, cfg)
	if err != nil {
		return err
	}
	defer dbexec.ClosePool(pool)
	dbexec.AwaitDatabase(ctx, pool, log, 10*time.Second)

	snaps := reload.NewSnapshots(reload.SourceFor(cfg, log), log)
	// A reload that finds the catalog changed retires the pooled sessions:
	// a migration may have replaced objects they cached. One that finds
	// nothing changed costs them nothing (Snapshots.Sessions).
	snaps.Sessions(pool)
	metrics := admin.NewMetrics(pool, snaps)
	// What the server knows is wrong with it and cannot mend, for /health.
	health := &reload.Health{}
	// The first snapshot must cover db-schemas too: one published that
	// does not leaves the server up and not ready, rather than exit.
	snaps.UseHealth(health)
	snaps.Require(reload.Covering(cfg))
	snaps.OnReload(metrics.SnapshotReloaded)
	// Replicas, when configured, are checked from now on; the first
	// snapshot already waits for those found healthy.
	replicas, err := txroute.NewReplicas(ctx, cfg, pool, log)
	if err != nil {
		return err
	}
	if replicas != nil {
		defer replicas.Close()
		replicas.Start(ctx)
		snaps.Gate(txroute.AwaitReplicas(replicas, log))
		metrics.Register(replicas.Collector())
	}
	if cfg.AdminEnabled() {
		// Up before the first snapshot loads: /live answers and /ready
		// says 503 while it does.
		adm := admin.New(pool, snaps, metrics, apierr.NamingOf(cfg.CompatNames), log)
		adm.UseHealth(health)
		stopAdmin, err := startAdmin(ctx, cfg, adm, log)
		if err != nil {
			return err
		}
		defer func() {
			shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			stopAdmin(shutdownCtx)
		}()
	}
	// The database away, the server answers 503 (SVC002) until a snapshot
	// loads, rather than exit and leave the restart to a supervisor; a
	// missing file or nothing published is for an operator to fix.
	if err := snaps.Start(ctx, 10*time.Second); err != nil {
		return firstSnapshotError(err, sources, cfg)
	}
	rt, err := server.NewRuntime(ctx, sources, cfg, pool, snaps, log, server.WithMetrics(metrics), server.WithReplicas(replicas))
	if err != nil {
		return err
	}
	defer rt.Close()
	reloads := reload.NewQueue(snaps.Refresh,
		func(ctx context.Context) error {
			err := rt.ReloadConfig(ctx)
			metrics.ConfigReloaded(err)
			return err
		})
	go reloads.Run(ctx)
	reloadOnSignals(ctx, reloads)
	if cfg.DBChannelEnabled {
		l := &reload.Listener{URI: cfg.DirectURI(), Channel: naming.ListenChannel(cfg), Others: naming.OtherChannels(cfg),
			Snapshots: snaps, Log: log, Queue: reloads, OnConnected: metrics.ListenerConnected,
			SelfCheck: pool, OnHearing: metrics.ListenerHears, Health: health}
		go l.Run(ctx)
	}

	ln, err := listen(ctx, cfg)
	if err != nil {
		return err
	}
	httpServer := server.NewHTTPServer(cfg, rt, log)
	log.Log(ctx, logging.LevelNotice, "listening", "address", ln.Addr().String())
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
	logDraining(ctx, log)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	if err := httpServer.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logStopped(log, false)
		return err
	}
	logStopped(log, true)
	return nil
}

// newLogger logs to stderr at log-level, in log-format.
func newLogger(level, format string) *slog.Logger {
	return logging.NewLogger(os.Stderr, level, format)
}
