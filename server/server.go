package server

import (
	"log/slog"
	"net/http"
	"net/textproto"
	"regexp"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // Prefer: timezone is checked against IANA names even where the OS lacks them

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
	// metrics counts requests; nil for none.
	metrics *admin.Metrics
	// traceHeader is server-trace-header in canonical form, "" for none.
	traceHeader string
	// logQuery is log-query = main-query.
	logQuery bool
	// reads and calls keep the statements of read shapes seen before:
	// reads of relations, and GET and HEAD calls.
	readShapes, callShapes *shapeCache
	// routes are the kinds of request the pipeline serves (pipeline.go).
	routes struct{ read, write, call, root route }
	// replicas serve the reads they may (replicas.go); nil for none.
	replicas *replica.Set
	// exec runs the requests' transactions.
	exec *dbexec.Executor
	// rootDocs keeps the root's OpenAPI documents, and stopRootDocs stops
	// it hearing of snapshot swaps (Close).
	rootDocs     *openapi.Cache
	stopRootDocs func()
	// refresh is how the snapshots served are brought up to date, which
	// hints about names they lack tell (plan.Refresh).
	refresh plan.Refresh
}

// Option adds an optional part to a Server.
type Option func(*Server)

// WithMetrics counts the Server's requests in m.
func WithMetrics(m *admin.Metrics) Option { return func(s *Server) { s.metrics = m } }

// New returns a server; snapshots must have loaded before it serves. jwt
// may be nil: requests carrying a token are then refused (SVC300).
func New(cfg *config.Config, pool *pgxpool.Pool, snapshots *reload.Snapshots, jwt *auth.Verifier, log *slog.Logger, opts ...Option) *Server {
	s := &Server{cfg: cfg, pool: pool, snapshots: snapshots, log: log, jwt: jwt,
		appSettings: appSettingsOf(cfg), preRequest: preRequestCall(cfg.DBPreRequest),
		logQuery:   cfg.LogQuery == "main-query",
		readShapes: newShapeCache(cfg.ServerShapeCacheMaxEntries, cfg.ServerShapeCacheMaxBytes),
		callShapes: newShapeCache(cfg.ServerShapeCacheMaxEntries, cfg.ServerShapeCacheMaxBytes),
		refresh:    refreshOf(snapshots.Source())}
	if cfg.ServerTraceHeader != "" {
		s.traceHeader = textproto.CanonicalMIMEHeaderKey(cfg.ServerTraceHeader)
	}
	for _, o := range opts {
		o(s)
	}
	s.rootDocs = openapi.NewCache(int64(cfg.OpenAPICacheMaxBytes), snapshots.Current)
	s.stopRootDocs = snapshots.OnSwap(s.rootDocs.Reset)
	s.exec = &dbexec.Executor{Pool: pool, AcquireTimeout: cfg.DBPoolAcquisitionTimeout, Prepare: cfg.DBPreparedStatements,
		CancelTimeout: cfg.DBPoolCancelTimeout, Log: log}
	s.routes.read = route{kind: request.KindRelation, shapes: s.readShapes, answer: s.answerRead}
	s.routes.write = route{kind: request.KindRelation, answer: s.answerWrite}
	s.routes.call = route{kind: request.KindFunction, shapes: s.callShapes, answer: s.answerCall}
	s.routes.root = route{kind: request.KindRoot, precheck: s.checkRoot, answer: s.answerRoot}
	r := mux.NewRouter()
	s.routeReferencePage(r)
	// The router tries routes in order, a regular expression each, and no
	// path matches two of these, so the most requested comes first.
	r.Handle("/{relation}", withVars(s.handleRelation))
	r.Handle("/rpc/{function}", withVars(s.handleFunction))
	r.Methods(http.MethodOptions).Path("/").HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		observationOf(r.Context()).answeredNow()
		w.Header().Set("Allow", "OPTIONS,GET,HEAD")
		s.allowInfoOrigin(w.Header())
		w.WriteHeader(http.StatusOK)
	})
	r.HandleFunc("/", s.handleRoot)
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, s.log, apierr.NotFound())
	})
	expose := corsExposeHeaders
	if s.replicas != nil {
		expose += ", " + CommitLSNHeader
	}
	s.handler = recoverPanics(log, cors(cfg.ServerCORSAllowedOrigins, expose, s.limitURL(router{r})))
	return s
}

// ServeHTTP dispatches to the route handlers, observed (observe.go).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.observe(w, r) }

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
		s.serve(w, r, &s.routes.read, target)
	case http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete:
		s.serve(w, r, &s.routes.write, target)
	case http.MethodOptions:
		s.handleOptions(w, r, request.KindRelation, target)
	default:
		writeError(w, s.log, apierr.UnsupportedVerb(r.Method))
	}
}

func (s *Server) planOptions() plan.Options {
	return plan.Options{Schemas: s.cfg.DBSchemas, MaxRows: int64(s.cfg.DBMaxRows),
		Aggregates: s.cfg.DBAggregatesEnabled, Refresh: s.refresh,
		LegacyTargetNames: s.cfg.URLUseLegacyTargetNames}
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

// preferences applies the Prefer values every request kind shares: the
// timezone and the transaction's end. It reports which of the two it
// applied.
//
// A timezone is applied when it is an IANA name (Go and PostgreSQL read
// the same database) or a numeric UTC offset such as +05:30 or -4, which
// PostgreSQL reads itself and may still refuse (05:30:15 asks for leap
// seconds): its error answers then, as in PostgREST. Any other name is
// ignored, as SPEC.md has it, unless handling=strict: then PostgreSQL is
// asked, and refuses an unknown zone with 400 (22023).
func (s *Server) preferences(pr request.Preferences, tx *dbexec.Tx) (applied appliedPrefs, err error) {
	if tz := pr.Timezone; tz != "" && (knownZone(tz) || utcOffset.MatchString(tz) || pr.Handling == "strict") {
		tx.Timezone = tz
		applied.timezone = true
	}
	// tx is a known preference even where db-tx-end does not let it
	// apply, so strict handling accepts it, as PostgREST does.
	tx.Rollback, applied.tx = s.cfg.TxRollback(pr.Tx)
	return applied, nil
}

// knownZone reports whether tz names a zone of the IANA database.
func knownZone(tz string) bool {
	_, err := time.LoadLocation(tz)
	return err == nil && tz != "Local"
}

// utcOffset matches the numeric time zones PostgreSQL reads as offsets
// from UTC: hours, optionally minutes and seconds, optionally signed.
var utcOffset = regexp.MustCompile(`^[+-]?[0-9]{1,2}(:[0-9]{2}){0,2}$`)

// appliedPrefs records which conditional preferences a request had
// applied, for Preference-Applied.
type appliedPrefs struct {
	timezone, tx bool
	// write is set for writes, whose own preferences are then echoed.
	write *plan.Write
}

// preferenceApplied renders the Preference-Applied header in PostgREST's
// fixed order; "" when nothing was applied.
func preferenceApplied(pr request.Preferences, h appliedPrefs) string {
	var out []string
	add := func(ok bool, name, value string) {
		if ok && value != "" {
			out = append(out, name+"="+value)
		}
	}
	w := h.write
	add(w != nil && w.Kind == plan.Insert && w.Upsert(), "resolution", pr.Resolution)
	add(w != nil && w.Kind != plan.Delete, "missing", pr.Missing)
	add(w != nil, "return", pr.Return)
	add(true, "params", pr.Params)
	add(true, "count", pr.Count)
	add(h.tx, "tx", pr.Tx)
	add(true, "handling", pr.Handling)
	add(h.timezone, "timezone", pr.Timezone)
	if pr.MaxAffected != nil && pr.Handling == "strict" && w != nil && (w.Kind == plan.Update || w.Kind == plan.Delete) {
		out = append(out, "max-affected="+strconv.FormatInt(*pr.MaxAffected, 10))
	}
	return strings.Join(out, ", ")
}
