package reload

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbconfig"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/logging"
	"github.com/svc-dev/svc/server/naming"
	"github.com/svc-dev/svc/sql/catalog"
	"github.com/svc-dev/svc/sql/snapstore"
)

// Runtime serves requests with the configuration in force and swaps in a
// new one on `reload config`, the way snapshots are swapped: the new
// Handler is built completely beside the old, then replaces it atomically;
// a request keeps the Handler it started with. A reload that fails keeps
// the old configuration and says why. The pool is shared, so db-uri and
// db-pool changes need a restart.
type Runtime struct {
	sources config.Sources
	snaps   *Snapshots
	log     *slog.Logger
	// build makes the Handler of a configuration.
	build Build
	// reloading serialises configuration reloads.
	reloading sync.Mutex
	current   atomic.Pointer[served]
}

// Handler is what a Runtime serves with: the API of one configuration.
type Handler interface {
	http.Handler
	// Close stops what the handler runs in the background.
	Close()
}

// Build makes the Handler for cfg, over the snapshots the Runtime holds.
type Build func(ctx context.Context, cfg *config.Config) (Handler, error)

// served is a Handler and the configuration it was built for.
type served struct {
	h   Handler
	cfg *config.Config
}

// ResolveConfig loads the configuration from sources and, when db-config
// is on, adds the in-database settings, as dbconfig.Resolve does at start:
// a database that cannot be read is logged and skipped, so a server can
// start while the database is away; the next reload reads it again.
func ResolveConfig(ctx context.Context, sources config.Sources, log *slog.Logger) (*config.Config, error) {
	return dbconfig.Resolve(ctx, sources, dbexec.Connect, log, true)
}

// SourceFor is the snapshot source cfg names: the snapshot published in
// the database ("db" or "db:<schema>"), its snapshot file, or live
// introspection of its schemas, which logs to log exposed schemas that do
// not exist.
func SourceFor(cfg *config.Config, log *slog.Logger) Source {
	if schema, ok := snapstore.SettingSchema(cfg.Snapshot); ok {
		return DBSource{URI: cfg.DirectURI(), Schema: schema}
	}
	if cfg.Snapshot != "" {
		return FileSource{Path: cfg.Snapshot}
	}
	return LiveSource{URI: cfg.DirectURI(), Options: catalog.Options{Schemas: cfg.DBSchemas, ExtraSearchPath: cfg.DBExtraSearchPath}, Log: log}
}

// NewRuntime builds, with build, the first Handler for cfg, which sources
// (re-read on every reload) produced. snaps must have loaded.
func NewRuntime(ctx context.Context, sources config.Sources, cfg *config.Config, snaps *Snapshots, log *slog.Logger, build Build) (*Runtime, error) {
	rt := &Runtime{sources: sources, snaps: snaps, log: log, build: build}
	srv, err := rt.buildFor(ctx, cfg)
	if err != nil {
		return nil, err
	}
	snaps.Require(Covering(cfg))
	rt.current.Store(srv)
	return rt, nil
}

// ServeHTTP serves with the Handler in force.
func (rt *Runtime) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt.current.Load().h.ServeHTTP(w, r)
}

// Config returns the configuration in force.
func (rt *Runtime) Config() *config.Config { return rt.current.Load().cfg }

// Handler returns the Handler in force.
func (rt *Runtime) Handler() Handler { return rt.current.Load().h }

// Close stops what the Handler in force runs in the background.
func (rt *Runtime) Close() { rt.current.Load().h.Close() }

// ReloadConfig re-reads the configuration (file, environment, database,
// flags) and swaps it in; when any of them cannot be read, the current
// configuration stays. When the exposed schemas change in live mode the
// snapshot is introspected again first; a snapshot file must already
// cover them.
func (rt *Runtime) ReloadConfig(ctx context.Context) error {
	rt.reloading.Lock()
	defer rt.reloading.Unlock()
	err := rt.reload(ctx)
	if err != nil {
		rt.log.Error("configuration reload failed; keeping the current configuration", "error", err)
		return err
	}
	rt.log.Log(ctx, logging.LevelNotice, "configuration reloaded")
	return nil
}

func (rt *Runtime) reload(ctx context.Context) error {
	cfg, err := dbconfig.Resolve(ctx, rt.sources, dbexec.Connect, rt.log, false)
	if err != nil {
		return err
	}
	old := rt.current.Load()
	if err := naming.CheckUnchanged(old.cfg, cfg); err != nil {
		return err
	}
	if sourceChanged(old.cfg, cfg) {
		previous := rt.snaps.Source()
		rt.snaps.SetSource(SourceFor(cfg, rt.log))
		rt.snaps.Require(Covering(cfg))
		if err := rt.snaps.Reload(ctx); err != nil {
			rt.snaps.SetSource(previous)
			rt.snaps.Require(Covering(old.cfg))
			return err
		}
	}
	srv, err := rt.buildFor(ctx, cfg)
	if err != nil {
		rt.snaps.Require(Covering(old.cfg))
		return err
	}
	rt.snaps.Require(Covering(cfg))
	rt.current.Store(srv)
	// In-flight requests may still use the old handler; closing only
	// stops what it runs in the background (a JWKS refresh).
	old.h.Close()
	return nil
}

// buildFor makes the Handler for cfg, once the snapshot in force is
// known to cover what cfg exposes.
func (rt *Runtime) buildFor(ctx context.Context, cfg *config.Config) (*served, error) {
	if dumped(rt.snaps.Source()) && rt.snaps.Current() != nil {
		if err := CheckSnapshotCovers(rt.snaps.Current(), cfg); err != nil {
			return nil, err
		}
	}
	h, err := rt.build(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &served{h: h, cfg: cfg}, nil
}

// dumped reports whether src serves snapshots dumped for a fixed list of
// schemas (a file, or one published in the database), which the
// configuration's db-schemas must stay within.
func dumped(src Source) bool {
	switch src.(type) {
	case FileSource, DBSource:
		return true
	}
	return false
}

// sourceChanged reports whether b's snapshot comes from elsewhere than
// a's: another file, or live introspection of other schemas.
func sourceChanged(a, b *config.Config) bool {
	return a.Snapshot != b.Snapshot || a.DirectURI() != b.DirectURI() ||
		(b.Snapshot == "" && (!slices.Equal(a.DBSchemas, b.DBSchemas) || !slices.Equal(a.DBExtraSearchPath, b.DBExtraSearchPath)))
}
