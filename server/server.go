package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/textproto"
	"strings"
	"sync/atomic"

	"github.com/svc-dev/svc/server/httpx"
	"github.com/svc-dev/svc/server/memlimit"
	"github.com/svc-dev/svc/server/observe"
	"github.com/svc-dev/svc/server/shapes"
	"github.com/svc-dev/svc/server/txroute"

	"github.com/gorilla/mux"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/admin"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/auth"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/openapi"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/server/replica"
	"github.com/svc-dev/svc/server/request"
)

// Server serves the API of the snapshot in force over a connection pool.
type Server struct {
	cfg       *config.Config
	pool      *pgxpool.Pool
	snapshots *reload.Snapshots
	log       *slog.Logger
	// handler is the router behind the CORS middleware.
	handler http.Handler
	// jwt verifies bearer tokens; nil when no JWT key is configured.
	jwt *auth.Verifier
	// appSettings are the app.settings.* keys, set in every transaction.
	appSettings [][2]string
	// preRequest calls db-pre-request; nil when none is configured.
	preRequest *query.Statement
	// observer times, counts and logs the requests (server/observe).
	observer observe.Observer
	// shapes keeps the statements of shapes seen before: reads of
	// relations, GET and HEAD calls, inserts (server/shapes).
	shapes *shapes.Cache
	// routes are the kinds of request the pipeline serves (pipeline.go).
	routes struct {
		read  route[*plan.Read]
		write route[*plan.Write]
		call  route[*plan.Call]
		root  route[string]
	}
	// limits are the request-max-* keys, which the pipeline checks once a
	// request is parsed.
	limits request.Limits
	// bodyLimits are the server-* keys reading a body obeys.
	bodyLimits request.BodyLimits
	// txs runs the requests' transactions, on the primary or a replica
	// (server/txroute).
	txs txroute.Router
	// rootDocs keeps the root's OpenAPI documents, and stopRootDocs stops
	// it hearing of snapshot swaps (Close).
	rootDocs     *openapi.Cache
	stopRootDocs func()
	// refresh is how the snapshots served are brought up to date, which
	// hints about names they lack tell (plan.Refresh).
	refresh plan.Refresh
	// misconfigured is the advice on relations and functions not found
	// when the configuration's typos may explain them (plan.Options).
	misconfigured string
	// bodies bounds the bodies of rows held at once (stream.go), shared
	// by every Server of the process.
	bodies *bodyBudget
	// streams holds a token for each streamed answer whose client lags
	// behind: half of db-pool, so that slow clients cannot hold every
	// session (streamwriter.go).
	streams chan struct{}
}

// CommitLSNHeader carries a WAL position of the primary both ways when
// replicas serve reads (txroute.CommitLSNHeader).
const CommitLSNHeader = txroute.CommitLSNHeader

// WithReplicas serves the reads a replica may serve from set's replicas
// (nil: none, every request on the primary).
func WithReplicas(set *replica.Set) Option { return func(s *Server) { s.txs.Replicas = set } }

// Option adds an optional part to a Server.
type Option func(*Server)

// WithMetrics counts the Server's requests in m.
func WithMetrics(m *admin.Metrics) Option { return func(s *Server) { s.observer.Metrics = m } }

// New returns a server; snapshots must have loaded before it serves. jwt
// may be nil: requests carrying a token are then refused (SVC300).
func New(cfg *config.Config, pool *pgxpool.Pool, snapshots *reload.Snapshots, jwt *auth.Verifier, log *slog.Logger, opts ...Option) *Server {
	s := &Server{cfg: cfg, pool: pool, snapshots: snapshots, log: log, jwt: jwt,
		appSettings: appSettingsOf(cfg), preRequest: preRequestCall(cfg.DBPreRequest),
		shapes:        shapes.New(cfg.ServerShapeCacheMaxEntries, cfg.ServerShapeCacheMaxBytes),
		refresh:       refreshOf(snapshots.Source()),
		misconfigured: misconfiguredAdvice(cfg),
		limits: request.Limits{Filters: cfg.RequestMaxFilters,
			SelectItems: cfg.RequestMaxSelectItems, EmbedDepth: cfg.RequestMaxEmbedDepth,
			Embeds: cfg.RequestMaxEmbeds, JSONPathDepth: cfg.RequestMaxJSONPathDepth,
			JSONPathSteps: cfg.RequestMaxJSONPathSteps, LogicDepth: cfg.RequestMaxLogicDepth},
		bodyLimits: request.BodyLimits{MaxBytes: cfg.ServerMaxBodyBytes, MaxLinesBytes: cfg.ServerMaxLinesBodyBytes,
			Batch: cfg.ServerResponseBufferBytes, ReadTimeout: cfg.ServerReadTimeout}}
	s.bodies = &processBodies
	s.streams = make(chan struct{}, max(1, cfg.DBPool/2))
	processBodies.setMax(BodiesMax(cfg, memlimit.Limit()))
	s.observer = observe.Observer{Next: http.HandlerFunc(s.dispatch), Timing: cfg.ServerTimingEnabled,
		LogQuery: cfg.LogQuery == "main-query", ManySchemas: len(cfg.DBSchemas) > 1, Log: log}
	if cfg.ServerTraceHeader != "" {
		s.observer.TraceHeader = textproto.CanonicalMIMEHeaderKey(cfg.ServerTraceHeader)
	}
	for _, o := range opts {
		o(s)
	}
	s.rootDocs = openapi.NewCache(int64(cfg.OpenAPICacheMaxBytes), snapshots.Current)
	s.stopRootDocs = snapshots.OnSwap(s.rootDocs.Reset)
	s.txs.Exec = &dbexec.Executor{Pool: pool, AcquireTimeout: cfg.DBPoolAcquisitionTimeout, Prepare: cfg.DBPreparedStatements,
		CancelTimeout: cfg.DBPoolCancelTimeout, Log: log}
	s.txs.RollbackByDefault, _ = cfg.TxRollback("")
	s.routes.read = route[*plan.Read]{kind: request.KindRelation, cached: true, part: shapes.Reads, plan: s.planRead, build: s.buildRead}
	s.routes.write = route[*plan.Write]{kind: request.KindRelation, plan: s.planWrite, build: s.buildWrite}
	s.routes.call = route[*plan.Call]{kind: request.KindFunction, cached: true, part: shapes.Calls, plan: s.planCall, build: s.buildCall}
	s.routes.root = route[string]{kind: request.KindRoot, precheck: s.checkRoot, plan: s.planRoot, build: s.buildRoot}
	r := mux.NewRouter()
	s.routeReferencePage(r)
	// The router tries routes in order, a regular expression each, and no
	// path matches two of these, so the most requested comes first.
	r.Handle("/{relation}", httpx.WithVars(s.handleRelation))
	r.Handle("/rpc/{function}", httpx.WithVars(s.handleFunction))
	r.Methods(http.MethodOptions).Path("/").HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		observe.Of(r.Context()).AnsweredNow()
		w.Header().Set("Allow", "OPTIONS,GET,HEAD")
		httpx.AllowInfoOrigin(w.Header(), cfg.ServerCORSAllowedOrigins)
		w.WriteHeader(http.StatusOK)
	})
	r.HandleFunc("/", s.handleRoot)
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, s.log, apierr.NotFound())
	})
	expose := httpx.CORSExposeHeaders
	if s.txs.Replicas != nil {
		expose += ", " + CommitLSNHeader
	}
	s.handler = httpx.RecoverPanics(log, httpx.CORS(cfg.ServerCORSAllowedOrigins, expose, httpx.LimitURL(cfg.ServerMaxURLBytes, log, httpx.Router{Router: r})))
	return s
}

// ServeHTTP dispatches to the route handlers, observed (observe.go).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	inFlight.Add(1)
	defer inFlight.Add(-1)
	s.observer.Serve(w, r)
}

// inFlight counts the requests being served, by every Server of the
// process.
var inFlight atomic.Int64

// Quiet reports whether the process serves no request at this moment:
// when the memory it holds is what it holds at rest (gcheadroom).
func Quiet() bool { return inFlight.Load() == 0 }

func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	if s.snapshots.Current() == nil {
		// The database was away when the server started; the loader keeps
		// trying, and until it succeeds there is no schema to serve.
		writeError(w, s.log, apierr.SnapshotUnavailable())
		return
	}
	s.handler.ServeHTTP(w, r)
}

func (s *Server) handleRelation(w http.ResponseWriter, r *http.Request, vars map[string]string) {
	target := vars["relation"]
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		serve(s, w, r, &s.routes.read, target)
	case http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete:
		serve(s, w, r, &s.routes.write, target)
	case http.MethodOptions:
		s.handleOptions(w, r, request.KindRelation, target)
	default:
		writeError(w, s.log, apierr.UnsupportedVerb(r.Method))
	}
}

func (s *Server) planOptions() plan.Options {
	return plan.Options{Schemas: s.cfg.DBSchemas, MaxRows: int64(s.cfg.DBMaxRows),
		Aggregates: s.cfg.DBAggregatesEnabled, Refresh: s.refresh, Misconfigured: s.misconfigured,
		LegacyTargetNames: s.cfg.URLUseLegacyTargetNames}
}

// misconfiguredAdvice is the advice on a relation or function not found
// when a name in cfg's sources looks meant for db-schemas: that key was
// then left as it is (most often its default, public), which no reload of
// the snapshot mends. "" when none does.
func misconfiguredAdvice(cfg *config.Config) string {
	var typos []string
	for _, w := range cfg.Misspelt {
		if w.Meant == "db-schemas" || w.Meant == "db-schema" {
			typos = append(typos, w.Message)
		}
	}
	if len(typos) == 0 {
		return ""
	}
	return fmt.Sprintf("db-schemas is %q, and the configuration names something that looks meant for it (%s). "+
		"Correct it and restart; a reload of the schema snapshot does not change the schemas exposed.",
		strings.Join(cfg.DBSchemas, ","), strings.Join(typos, "; "))
}

// refreshOf is how snapshots from src are brought up to date after a
// migration. A configuration reload that changes the source builds a new
// Server, so the value is fixed for a Server's life.
func refreshOf(src reload.Source) plan.Refresh {
	switch src.(type) {
	case reload.FileSource:
		return plan.RefreshDump
	case reload.DBSource:
		return plan.RefreshPublish
	}
	return plan.RefreshReload
}
