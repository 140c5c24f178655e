// Package server is SVC's HTTP handler: the routes and the one pipeline
// every request of the API goes through, and its answers. It wires the
// pure stages (request -> plan -> query) to the database (server/dbexec),
// and is the only package that knows both HTTP and the database. What
// keeps the snapshot and configuration current is server/reload; the
// admin server and metrics are server/admin.
//
// Its files tell a request's story from the top down, each using only
// what the files below it declare (docs/story_test.go holds the rule):
// server.go the Server and its routes; pipeline.go the stages in order;
// read.go, write.go, call.go and root.go how each kind of request is
// planned, built and answered; explain.go the plan media type; shape.go
// what the shape cache keeps of reads and calls; transaction.go the
// transaction's context and set-up; respond.go the answer of rows and
// what answers share; exchange.go, at the foot, the words they all
// speak. What is not the story has a package of its own below server:
// httpx the HTTP plumbing, observe the access log and Server-Timing,
// shapes the shape cache, stream the answers that outgrow the buffer,
// txroute the primary or a replica.
//
// # Words
//
// Some words here have meant more than one thing; in this package and
// those under it they mean:
//
//   - shape: a request with its values taken out: its method, target,
//     parameters' names and operators, and headers that change the
//     statement, keyed by request.Template. Two GETs of /books?id=eq.1 and
//     /books?id=eq.2 have one shape. The shape cache (server/shapes) keeps,
//     per shape, the statements planned for its first request, and binds
//     a later request's values into them. A function's return shape
//     (snapshot.ReturnShape: void, a scalar, a set of rows) is another
//     thing, named by the snapshot; the set-up statement's variants
//     (dbexec) are named variants, not shapes.
//   - keep, kept, bind: a shape is kept once its statements hold none of
//     the request's values (a request whose statements cannot be made so
//     is answered but not kept); binding puts a request's values back in.
//   - applied (appliedPrefs, formerly "honoured"): which of a request's
//     Prefer values took effect, for the Preference-Applied header. A
//     preference is applied, never honoured, ignored or accepted.
//   - stage: one step of a request's story, in pipeline's order: parse,
//     authenticate, plan, build, transaction, respond.
//   - action: what a request's plan is built into (pipeline.go): its
//     transaction's set-up (begin), its statements (steps) and its
//     answer (respond). A kept shape is the action of the requests of
//     that shape.
//   - precheck: what a route refuses of a parsed request before it is
//     authenticated and the transaction's context (role, claims) built;
//     the root's schema.
//     A Tx's Check (dbexec) is another thing: what must hold of a
//     statement's results before its transaction may commit.
//   - refuse: to answer a request with an error before it reaches the
//     database (refusePlan, refuseWrite).
//   - mark: reading the primary's WAL position in the round trip that
//     commits a write, for the SVC-Commit-LSN header (server/txroute).
//   - reads: a Tx that only reads, which a replica may serve. The shape
//     cache's parts of reads and calls are shapes.Reads and shapes.Calls.
//   - releaseAndYield (dbexec, formerly "handBack"): giving a connection
//     back to the pool, then yielding so a waiting request runs first.
//   - settle (server/http1): deciding, as an answer's header goes out,
//     what becomes of the request body not read, and so of the
//     connection's keep-alive.
//   - observation: what the pipeline tells the access log, log-query and
//     Server-Timing about a request (its statement, the database's time);
//     it travels in the request's context (server/observe).
package server

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/textproto"
	"strings"
	"sync/atomic"

	"github.com/gorilla/mux"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/admin"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/auth"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/http1"
	"github.com/svc-dev/svc/server/httpx"
	"github.com/svc-dev/svc/server/memlimit"
	"github.com/svc-dev/svc/server/observe"
	"github.com/svc-dev/svc/server/openapi"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/server/replica"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/server/shapes"
	"github.com/svc-dev/svc/server/stream"
	"github.com/svc-dev/svc/server/txroute"
)

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
	s := &Server{cfg: cfg, names: apierr.NamingOf(cfg.CompatNames), verbosity: clientErrors(cfg), pool: pool, snapshots: snapshots, log: log, jwt: jwt,
		appSettings: appSettingsOf(cfg), searchPaths: searchPathsOf(cfg), preRequest: preRequestCall(cfg.DBPreRequest),
		shapes:        shapes.New(cfg.ServerShapeCacheMaxEntries, cfg.ServerShapeCacheMaxBytes),
		refresh:       refreshOf(snapshots.Source()),
		misconfigured: misconfiguredAdvice(cfg),
		limits: request.Limits{Filters: cfg.RequestMaxFilters,
			SelectItems: cfg.RequestMaxSelectItems, EmbedDepth: cfg.RequestMaxEmbedDepth,
			Embeds: cfg.RequestMaxEmbeds, JSONPathDepth: cfg.RequestMaxJSONPathDepth,
			JSONPathSteps: cfg.RequestMaxJSONPathSteps, LogicDepth: cfg.RequestMaxLogicDepth},
		bodyLimits: request.BodyLimits{MaxBytes: cfg.ServerMaxBodyBytes, MaxLinesBytes: cfg.ServerMaxLinesBodyBytes,
			Batch: cfg.ServerResponseBufferBytes, ReadTimeout: cfg.ServerReadTimeout}}
	s.streaming = stream.Settings{Limit: cfg.ServerResponseBufferBytes, Budget: &processBodies,
		SendTimeout: cfg.ServerStreamSendTimeout, Streams: make(chan struct{}, max(1, cfg.DBPool/2))}
	processBodies.SetMax(BodiesMax(cfg, memlimit.Limit()))
	s.observer = observe.Observer{Next: http.HandlerFunc(s.dispatch), Timing: cfg.ServerTimingEnabled,
		LogQuery: cfg.LogQuery == "main-query", ManySchemas: len(cfg.DBSchemas) > 1, Log: log}
	if cfg.ServerTraceHeader != "" {
		s.observer.TraceHeader = textproto.CanonicalMIMEHeaderKey(cfg.ServerTraceHeader)
	}
	s.planning = plan.Options{Names: s.names, PreRequest: cfg.DBPreRequest != "", Schemas: cfg.DBSchemas, MaxRows: int64(cfg.DBMaxRows),
		Aggregates: cfg.DBAggregatesEnabled, Refresh: s.refresh, Misconfigured: s.misconfigured,
		LegacyTargetNames: cfg.URLUseLegacyTargetNames}
	for _, o := range opts {
		o(s)
	}
	s.rootDocs = openapi.NewCache(int64(cfg.OpenAPICacheMaxBytes), snapshots.Current)
	s.stopRootDocs = snapshots.OnSwap(s.rootDocs.Reset)
	s.txs.Exec = &dbexec.Executor{Pool: pool, AcquireTimeout: cfg.DBPoolAcquisitionTimeout, Prepare: cfg.DBPreparedStatements,
		CancelTimeout: cfg.DBPoolCancelTimeout, Log: log, Names: s.names}
	s.txs.RollbackByDefault, _ = cfg.TxRollback("")
	r := mux.NewRouter()
	s.routeReferencePage(r)
	// The router tries routes in order, and no path matches two of
	// these, so the most requested comes first.
	routes := httpx.Router{Router: r}
	routes.Segment(httpx.Segment{Prefix: "/", Handle: s.handleRelation})
	routes.Segment(httpx.Segment{Prefix: "/rpc/", Handle: s.handleFunction})
	r.Methods(http.MethodOptions).Path("/").HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		observe.Of(w).AnsweredNow()
		w.Header().Set("Allow", "OPTIONS,GET,HEAD")
		httpx.AllowInfoOrigin(w.Header(), cfg.ServerCORSAllowedOrigins)
		w.WriteHeader(http.StatusOK)
	})
	r.HandleFunc("/", s.handleRoot)
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.writeError(w, apierr.NotFound())
	})
	expose := httpx.CORSExposeHeaders
	if s.txs.Replicas != nil {
		expose += ", " + CommitLSNHeader
	}
	s.handler = httpx.RecoverPanics(s.names, s.verbosity, log,
		httpx.CORS(cfg.ServerCORSAllowedOrigins, expose, httpx.LimitURL(cfg.ServerMaxURLBytes, s.names, s.verbosity, log, routes)))
	return s
}

// ServeHTTP dispatches to the route handlers, observed (server/observe).
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
		s.writeError(w, apierr.SnapshotUnavailable())
		return
	}
	s.handler.ServeHTTP(w, r)
}

// handleFunction serves /rpc/<function>: POST with the arguments in the
// body, GET and HEAD with them in the query string, in a read-only
// transaction (a function that writes then fails as in PostgREST, 405).
func (s *Server) handleFunction(w http.ResponseWriter, r *http.Request, function string) {
	if r.Method == http.MethodOptions {
		s.handleOptions(w, r, request.KindFunction, function)
		return
	}
	serve(s, w, r, &callRoute, function)
}

// handleRoot answers GET and HEAD / with the OpenAPI description of the
// selected schema, built from the snapshot for the requesting role: no
// statement runs (rootAnswer). With db-root-spec, that function's result
// is served instead, called as GET /rpc/<function> would call it.
func (s *Server) handleRoot(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		s.writeError(w, apierr.UnsupportedVerb(r.Method))
		return
	}
	if s.cfg.DBRootSpec != "" {
		s.serveRootSpec(w, r)
		return
	}
	if s.cfg.OpenAPIMode == config.OpenAPIDisabled {
		s.writeError(w, apierr.OpenAPIDisabled())
		return
	}
	serve(s, w, r, &rootRoute, "")
}

// serveRootSpec answers / with the db-root-spec function's result. The
// root's media types are negotiated first; the call itself then runs as
// an ordinary JSON call (query parameters become arguments), and a
// successful answer is labelled as the root description, unless the
// client asked for application/json (request.NegotiateRootSpec).
func (s *Server) serveRootSpec(w http.ResponseWriter, r *http.Request) {
	asJSON, err := request.NegotiateRootSpec(s.names, strings.Join(r.Header.Values("Accept"), ", "))
	if err != nil {
		s.writeError(w, err)
		return
	}
	call := r.Clone(r.Context())
	call.Header.Set("Accept", "application/json")
	if asJSON {
		serve(s, w, call, &callRoute, s.cfg.DBRootSpec)
		return
	}
	serve(s, &rootSpecWriter{ResponseWriter: w}, call, &callRoute, s.cfg.DBRootSpec)
}

// rootSpecWriter relabels a successful JSON answer as application/openapi+json.
type rootSpecWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *rootSpecWriter) WriteHeader(status int) {
	if !w.wrote && status < 300 && w.Header().Get("Content-Type") == jsonType {
		w.Header().Set("Content-Type", openAPIType)
	}
	w.wrote = true
	w.ResponseWriter.WriteHeader(status)
}

// Unwrap lets the observer (observe.Of) and http.ResponseController reach
// the writer underneath.
func (w *rootSpecWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *rootSpecWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (s *Server) handleRelation(w http.ResponseWriter, r *http.Request, target string) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		serve(s, w, r, &readRoute, target)
	case http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete:
		serve(s, w, r, &writeRoute, target)
	case http.MethodOptions:
		s.handleOptions(w, r, request.KindRelation, target)
	default:
		s.writeError(w, apierr.UnsupportedVerb(r.Method))
	}
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

// handleOptions answers OPTIONS on a relation or function route with the
// methods it allows, from the snapshot alone. CORS preflights never get
// here: the CORS middleware answers them.
func (s *Server) handleOptions(w http.ResponseWriter, r *http.Request, kind request.Kind, target string) {
	obs := observe.Of(w)
	t0 := obs.StageStart()
	req, err := request.Parse(s.names, r, kind, target)
	obs.ParseDone(t0)
	if err == nil {
		err = req.CheckLimits(s.limits)
	}
	if err != nil {
		s.writeError(w, err)
		return
	}
	allow := "OPTIONS,GET,HEAD"
	snap := s.snapshots.Current()
	switch kind {
	case request.KindRelation:
		allow, err = plan.AllowRelation(req, snap, s.planning)
	case request.KindFunction:
		allow, err = plan.AllowFunction(req, snap, s.planning)
	}
	if err != nil {
		s.writeError(w, err)
		return
	}
	obs.AnsweredNow()
	w.Header().Set("Allow", allow)
	httpx.AllowInfoOrigin(w.Header(), s.cfg.ServerCORSAllowedOrigins)
	w.WriteHeader(http.StatusOK)
}

// NewRuntime serves cfg, which sources (re-read on every reload)
// produced, with a Server that 'reload config' replaces by a new one
// (reload.Runtime). snaps must have loaded; opts apply to every Server
// built.
func NewRuntime(ctx context.Context, sources config.Sources, cfg *config.Config, pool *pgxpool.Pool, snaps *reload.Snapshots, log *slog.Logger, opts ...Option) (*reload.Runtime, error) {
	return reload.NewRuntime(ctx, sources, cfg, snaps, log, func(ctx context.Context, cfg *config.Config) (reload.Handler, error) {
		jwt, err := NewVerifier(ctx, cfg)
		if err != nil {
			return nil, err
		}
		return New(cfg, pool, snaps, jwt, log, opts...), nil
	})
}

// Close stops what s runs in the background: the JWKS refresh, and the
// root documents' following of snapshot swaps. Requests in flight may
// still use s.
func (s *Server) Close() {
	s.jwt.Close()
	s.stopRootDocs()
}

// NewVerifier builds the JWT verifier cfg describes, or nil when no key is
// configured (a request with a token then fails with SVC300).
func NewVerifier(ctx context.Context, cfg *config.Config) (*auth.Verifier, error) {
	return auth.New(ctx, verifierOptions(cfg))
}

// CheckJWTConfig reports what NewVerifier would refuse in cfg, without
// fetching a JWKS: start-up reports a mistyped key before connecting.
func CheckJWTConfig(cfg *config.Config) error { return auth.Check(verifierOptions(cfg)) }

func verifierOptions(cfg *config.Config) auth.Options {
	return auth.Options{
		Secret:          cfg.JWTSecret,
		SecretIsBase64:  cfg.JWTSecretIsBase64,
		Audience:        cfg.JWTAud,
		RoleClaimKey:    cfg.JWTRoleClaimKey,
		JWKSURL:         cfg.JWTJWKSURL,
		CacheMaxEntries: cfg.JWTCacheMaxEntries,
		CacheMaxBytes:   cfg.JWTCacheMaxBytes,
	}
}

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

// BodiesMax is the bound of the memory bodies may hold at once:
// server-response-buffers-max-bytes, and at most a quarter of limit, the
// memory the process's cgroup allows (0 for none), so that a container
// with little memory holds less before answers stream.
func BodiesMax(cfg *config.Config, limit int64) int {
	n := cfg.ServerResponseBuffersMaxBytes
	if limit > 0 && int64(n) > limit/4 {
		n = int(limit / 4)
	}
	return n
}

// processBodies is the process's budget: server-response-buffers-max-bytes
// is read at start, and a configuration reload's new Server shares it.
var processBodies stream.Budget
