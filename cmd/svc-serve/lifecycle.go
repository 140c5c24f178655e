package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/logging"
	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/snapshot"
)

// What svc-serve says of its own life, whatever log-level says: what it
// starts with, and how it stops. An operator reading a log after the fact
// should not have to guess which file, naming or snapshot a server ran
// with, nor whether it stopped on purpose.

// drainTimeout bounds how long a stopping server waits for the requests
// in flight.
const drainTimeout = 10 * time.Second

// logStart names the version, the configuration file, the naming in
// force (compat-names) and where the snapshot comes from, a file by the
// path the setting resolved to.
func logStart(ctx context.Context, log *slog.Logger, sources config.Sources, cfg *config.Config) {
	file := "none"
	if sources.File != "" {
		file = absolute(sources.File)
	}
	src := reload.SourceFor(cfg, nil)
	if f, ok := src.(reload.FileSource); ok {
		src = reload.FileSource{Path: absolute(f.Path)}
	}
	log.Log(ctx, logging.LevelNotice, "starting svc-serve", "version", snapshot.SVCVersion,
		"config", file, "naming", cfg.CompatNames, "snapshot", src.Describe())
}

// absolute is path made absolute, for a log read far from the directory
// svc-serve started in; as it is when that cannot be.
func absolute(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// logDraining says the server stopped accepting connections and waits
// for the requests in flight; ctx is the serving context, ended by a
// signal or by the caller.
func logDraining(ctx context.Context, log *slog.Logger) {
	attrs := []any{"within", drainTimeout}
	// A signal's cause reads as context.Canceled too (errors.Is), so only
	// the bare value means the caller ended it.
	if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
		attrs = append([]any{"reason", cause.Error()}, attrs...)
	}
	log.Log(context.Background(), logging.LevelNotice, "stopping: no new connections; finishing the requests in flight", attrs...)
}

// logStopped says the server is done: every request answered, or, when
// drained is false, some cut off after drainTimeout.
func logStopped(log *slog.Logger, drained bool) {
	if !drained {
		log.Log(context.Background(), logging.LevelNotice, "stopped; requests still in flight were cut off", "after", drainTimeout)
		return
	}
	log.Log(context.Background(), logging.LevelNotice, "stopped")
}
