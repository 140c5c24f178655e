package server

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/openapi"
	"github.com/svc-dev/svc/server/openapi/ui"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// openAPIType is the Content-Type of the root description.
const openAPIType = "application/openapi+json; charset=utf-8"

// openAPI31Type is the Content-Type of the OpenAPI 3.1 description: the
// version parameter tells it from the Swagger 2.0 one.
const openAPI31Type = "application/openapi+json; version=3.1; charset=utf-8"

// handleRoot answers GET and HEAD / with the OpenAPI description of the
// selected schema, built from the snapshot for the requesting role: no
// statement runs (answerRoot). With db-root-spec, that function's result
// is served instead, called as GET /rpc/<function> would call it.
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
	s.serve(w, r, &s.routes.root, "")
}

// checkRoot selects the schema the root describes, before the role is
// known.
func (s *Server) checkRoot(x *exchange, req *request.Request) (err error) {
	x.schema, err = plan.Schema(req, s.planOptions())
	return err
}

// answerRoot answers GET and HEAD / with the OpenAPI description of the
// schema checkRoot selected, for the requesting role, in the version the
// Accept header asks for, else openapi-version's. The document is built
// once per snapshot, schema, version and set of privileges, and kept
// (openapi.Cache, openapi-cache-max-bytes): building it walks the whole
// schema (BenchmarkServeRootLarge).
func (s *Server) answerRoot(x *exchange, req *request.Request) error {
	snap, role, schema := x.snap, x.tx.Role, x.schema
	if snap.Role(role) == nil {
		return apierr.UndefinedRole(role)
	}
	format := req.Media.OpenAPI
	if format == "" {
		format = s.cfg.OpenAPIVersion
	}
	scheme, host, basePath := s.cfg.OpenAPIServer()
	if format == openapi.OpenAPI31 && s.cfg.OpenAPIServerProxyURI == "" {
		// Without a public URI, the 3.1 document's server is where it
		// was fetched from (a relative "/"), not server-host's address,
		// which a wildcard host makes unreachable (0.0.0.0).
		scheme, host, basePath = "", "", ""
	}
	t0 := x.obs.stageStart()
	body, err := s.rootDocs.Document(snap, openapi.Options{
		Format:           format,
		Anonymous:        s.cfg.DBAnonRole != "",
		Schema:           schema,
		Version:          snapshot.SVCVersion,
		Role:             role,
		FollowPrivileges: s.cfg.OpenAPIMode != config.OpenAPIIgnorePrivileges,
		Security:         s.cfg.OpenAPISecurityActive,
		Scheme:           scheme,
		Host:             host,
		BasePath:         basePath,
		Vendor:           apierr.Names.Vendor,
	})
	if err != nil {
		return apierr.Internal(err)
	}
	x.obs.contentBuilt(t0)
	h := x.w.Header()
	if len(s.cfg.DBSchemas) > 1 {
		h.Set("Content-Profile", schema)
	}
	if format == openapi.OpenAPI31 {
		h.Set("Content-Type", openAPI31Type)
	} else {
		h.Set("Content-Type", openAPIType)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	x.w.WriteHeader(http.StatusOK)
	if x.r.Method != http.MethodHead {
		x.w.Write(body)
	}
	return nil
}

// serveRootSpec answers / with the db-root-spec function's result. The
// root's media types are negotiated first; the call itself then runs as
// an ordinary JSON call (query parameters become arguments), and a
// successful answer is labelled as the root description, unless the
// client asked for application/json (request.NegotiateRootSpec).
func (s *Server) serveRootSpec(w http.ResponseWriter, r *http.Request) {
	asJSON, err := request.NegotiateRootSpec(strings.Join(r.Header.Values("Accept"), ", "))
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	call := r.Clone(r.Context())
	call.Header.Set("Accept", "application/json")
	if asJSON {
		s.serve(w, call, &s.routes.call, s.cfg.DBRootSpec)
		return
	}
	s.serve(&rootSpecWriter{ResponseWriter: w}, call, &s.routes.call, s.cfg.DBRootSpec)
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

// routeReferencePage serves the API reference page (openapi-ui-path) at
// its path and below it, when one is set. Its routes come before the
// relations', which would take the path for a relation's name.
func (s *Server) routeReferencePage(r *mux.Router) {
	if p := s.cfg.OpenAPIUIPath; p != "" {
		page := ui.Handler(p)
		r.Path(p).Handler(page)
		r.PathPrefix(p + "/").Handler(page)
	}
}
