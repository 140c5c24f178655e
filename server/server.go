package server

import (
	"log/slog"
	"net/http"

	"github.com/gorilla/mux"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/request"
)

// Server serves the API of the snapshot in force over a connection pool.
type Server struct {
	cfg       *config.Config
	pool      *pgxpool.Pool
	snapshots *Snapshots
	log       *slog.Logger
	router    *mux.Router
}

// New returns a server; snapshots must have loaded before it serves.
func New(cfg *config.Config, pool *pgxpool.Pool, snapshots *Snapshots, log *slog.Logger) *Server {
	s := &Server{cfg: cfg, pool: pool, snapshots: snapshots, log: log}
	r := mux.NewRouter()
	r.HandleFunc("/", s.handleRoot)
	r.HandleFunc("/rpc/{function}", s.handleFunction)
	r.HandleFunc("/{relation}", s.handleRelation)
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, s.log, apierr.NotFound())
	})
	s.router = r
	return s
}

// ServeHTTP dispatches to the route handlers.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

func (s *Server) handleRelation(w http.ResponseWriter, r *http.Request) {
	target := mux.Vars(r)["relation"]
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		s.handleRead(w, r, target)
	case http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete:
		s.handleWrite(w, r, target)
	default:
		writeError(w, s.log, apierr.UnsupportedVerb(r.Method))
	}
}

// handleFunction answers /rpc routes; calling functions is not built yet,
// so every function is reported absent rather than half-served.
func (s *Server) handleFunction(w http.ResponseWriter, _ *http.Request) {
	writeError(w, s.log, apierr.NotFound())
}

func (s *Server) planOptions() plan.Options {
	return plan.Options{Schemas: s.cfg.DBSchemas, MaxRows: int64(s.cfg.DBMaxRows)}
}

// txFor decides the role a request runs as. Until JWT authentication lands,
// every request is anonymous.
func (s *Server) txFor(r *http.Request, req *request.Request) (txSpec, error) {
	if s.cfg.DBAnonRole == "" {
		return txSpec{}, apierr.AnonymousDisabled()
	}
	return txSpec{role: s.cfg.DBAnonRole, method: r.Method, path: r.URL.Path}, nil
}
