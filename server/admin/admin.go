package admin

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/reload"
)

// readyTimeout bounds /ready's database ping: a probe must answer well
// within an orchestrator's own timeout (commonly one second) even when
// the database is unreachable rather than refusing.
const readyTimeout = 800 * time.Millisecond

// Admin serves the admin server (admin-server-port), for operators and
// orchestrators rather than API clients:
//
//	/live      200 while the process runs
//	/ready     200 when a snapshot is loaded and the pool reaches the
//	           database within readyTimeout; 503 otherwise
//	/metrics   Prometheus metrics (Metrics)
//	/snapshot  the snapshot in force, as JSON (no catalog detail)
//	/health    whether it is ready, and the problems it knows of, each
//	           with its fix, as JSON (UseHealth)
//
// As in PostgREST, /live and /ready answer with an empty body. Nothing
// here reads or writes API data, so the port can be reachable from where
// the API is not.
type Admin struct {
	pool    *pgxpool.Pool
	snaps   *reload.Snapshots
	metrics *Metrics
	names   apierr.Naming // which its errors are written under
	log     *slog.Logger
	mux     *http.ServeMux
	health  *reload.Health
}

// New returns the admin handler over the request pool, the snapshot
// holder and the metrics the main server counts in; its errors are
// written under the main server's naming, names.
func New(pool *pgxpool.Pool, snaps *reload.Snapshots, metrics *Metrics, names apierr.Naming, log *slog.Logger) *Admin {
	a := &Admin{pool: pool, snaps: snaps, metrics: metrics, names: names, log: log, mux: http.NewServeMux()}
	a.mux.HandleFunc("GET /live", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	a.mux.HandleFunc("GET /ready", a.ready)
	a.mux.Handle("GET /metrics", metrics.Handler())
	a.mux.HandleFunc("GET /snapshot", a.snapshot)
	a.mux.HandleFunc("GET /health", a.healthAnswer)
	return a
}

// UseHealth has /health list h's problems, and /ready answer 503 while
// one of them keeps the server from serving (Problem.NotReady). Call it
// before serving.
func (a *Admin) UseHealth(h *reload.Health) { a.health = h }

// ServeHTTP routes to the admin endpoints.
func (a *Admin) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.mux.ServeHTTP(w, r) }

// ready checks what a request needs: a snapshot, and a database that
// answers through the pool (so an exhausted pool is not ready either).
func (a *Admin) ready(w http.ResponseWriter, r *http.Request) {
	if !a.isReady(r.Context()) {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// isReady is /ready's answer: a snapshot, no problem that keeps the
// server from serving, and a database that answers through the pool.
func (a *Admin) isReady(ctx context.Context) bool {
	if p, ok := a.health.NotReady(); ok {
		a.log.Debug("not ready: "+p.Problem, "fix", p.Fix)
		return false
	}
	if a.snaps.Current() == nil {
		a.log.Debug("not ready: no schema snapshot loaded")
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	if err := a.pool.Ping(ctx); err != nil {
		a.log.Debug("not ready: database ping failed", "error", err)
		return false
	}
	return true
}

// healthInfo is /health's body.
type healthInfo struct {
	Ready    bool             `json:"ready"`
	Problems []reload.Problem `json:"problems"`
}

// healthAnswer says, always with 200 (the answer is in the body), whether
// the server is ready and what is wrong with it, each problem with its
// fix: what /ready, an orchestrator's yes or no, does not say.
func (a *Admin) healthAnswer(w http.ResponseWriter, r *http.Request) {
	info := healthInfo{Ready: a.isReady(r.Context()), Problems: a.health.Problems()}
	if info.Problems == nil {
		info.Problems = []reload.Problem{}
	}
	body, err := json.Marshal(info)
	if err != nil {
		apierr.Internal(err).Write(w, a.names, apierr.Verbose, a.log)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}

// snapshotInfo is /snapshot's body.
type snapshotInfo struct {
	Fingerprint      string     `json:"fingerprint"`
	FormatVersion    int        `json:"format_version"`
	GeneratorVersion string     `json:"generator_version"`
	Schemas          []string   `json:"schemas"`
	CreatedAt        time.Time  `json:"created_at"`
	LoadedAt         *time.Time `json:"loaded_at,omitempty"`
	Relations        int        `json:"relations"`
	Functions        int        `json:"functions"`
}

// snapshot describes the snapshot in force, or answers 503 (SVC002) when
// none has loaded yet.
func (a *Admin) snapshot(w http.ResponseWriter, _ *http.Request) {
	snap := a.snaps.Current()
	if snap == nil {
		apierr.SnapshotUnavailable().Write(w, a.names, apierr.Verbose, a.log)
		return
	}
	h := snap.Header
	info := snapshotInfo{Fingerprint: h.Fingerprint, FormatVersion: h.FormatVersion, GeneratorVersion: h.GeneratorVersion,
		Schemas: h.Schemas, CreatedAt: h.CreatedAt,
		Relations: len(snap.Content.Relations), Functions: len(snap.Content.Functions)}
	if at := a.metrics.LoadedAt(); !at.IsZero() {
		info.LoadedAt = &at
	}
	body, err := json.Marshal(info)
	if err != nil {
		apierr.Internal(err).Write(w, a.names, apierr.Verbose, a.log)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}
