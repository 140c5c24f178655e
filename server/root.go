package server

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/openapi"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// openAPIType is the Content-Type of the root description.
const openAPIType = "application/openapi+json; charset=utf-8"

// handleRoot answers GET and HEAD / with the OpenAPI description of the
// selected schema, built from the snapshot for the requesting role: no
// statement runs. With db-root-spec, that function's result is served
// instead, called as GET /rpc/<function> would call it.
func (s *Server) handleRoot(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, s.log, apierr.UnsupportedVerb(r.Method))
		return
	}
	if s.cfg.DBRootSpec != "" {
		s.serveRootSpec(w, r)
		return
	}
	if s.cfg.OpenAPIMode == config.OpenAPIDisabled {
		writeError(w, s.log, apierr.OpenAPIDisabled())
		return
	}
	snap := s.snapshots.Current()
	req, err := s.parseRequest(w, r, request.KindRoot, "")
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	schema, err := plan.Schema(req, s.planOptions())
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	// The role decides the content, and a bad token is refused here as on
	// every other route.
	tx, err := s.txFor(w, r, snap)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	if snap.Role(tx.role) == nil {
		writeError(w, s.log, apierr.UndefinedRole(tx.role))
		return
	}
	scheme, host, basePath := s.cfg.OpenAPIServer()
	body, err := openapi.Build(snap, openapi.Options{
		Schema:           schema,
		Version:          snapshot.SVCVersion,
		Role:             tx.role,
		FollowPrivileges: s.cfg.OpenAPIMode != config.OpenAPIIgnorePrivileges,
		Security:         s.cfg.OpenAPISecurityActive,
		Scheme:           scheme,
		Host:             host,
		BasePath:         basePath,
		Vendor:           apierr.Names.Vendor,
	})
	if err != nil {
		writeError(w, s.log, apierr.Internal(err))
		return
	}
	h := w.Header()
	if len(s.cfg.DBSchemas) > 1 {
		h.Set("Content-Profile", schema)
	}
	h.Set("Content-Type", openAPIType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// serveRootSpec answers / with the db-root-spec function's result. The
// root's media types are negotiated first; the call itself then runs as
// an ordinary JSON call (query parameters become arguments), and a
// successful answer is labelled as the root description.
func (s *Server) serveRootSpec(w http.ResponseWriter, r *http.Request) {
	if _, err := request.NegotiateRoot(strings.Join(r.Header.Values("Accept"), ", ")); err != nil {
		writeError(w, s.log, err)
		return
	}
	call := r.Clone(r.Context())
	call.Header.Set("Accept", "application/json")
	s.callFunction(&rootSpecWriter{ResponseWriter: w}, call, s.cfg.DBRootSpec)
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

func (w *rootSpecWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}
