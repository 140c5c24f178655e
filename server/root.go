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
// statement runs (rootAnswer). With db-root-spec, that function's result
// is served instead, called as GET /rpc/<function> would call it.
func (s *Server) handleRoot(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, s.names, s.log, apierr.UnsupportedVerb(r.Method))
		return
	}
	if s.cfg.DBRootSpec != "" {
		s.serveRootSpec(w, r)
		return
	}
	if s.cfg.OpenAPIMode == config.OpenAPIDisabled {
		writeError(w, s.names, s.log, apierr.OpenAPIDisabled())
		return
	}
	serve(s, w, r, &s.routes.root, "")
}

// checkRoot selects the schema the root describes, before the role is
// known.
func (s *Server) checkRoot(x *exchange, req *request.Request) (err error) {
	x.schema, err = plan.Schema(req, s.planOptions())
	return err
}

// planRoot plans GET and HEAD / for the requesting role, which must
// exist: the version of the description the Accept header asks for, else
// openapi-version's.
func (s *Server) planRoot(x *exchange, req *request.Request) (string, error) {
	if x.snap.Role(x.tx.Role) == nil {
		return "", apierr.UndefinedRole(x.tx.Role)
	}
	if req.Media.OpenAPI != "" {
		return req.Media.OpenAPI, nil
	}
	return s.cfg.OpenAPIVersion, nil
}

// buildRoot builds the root's action for a description in format: it has
// no statement.
func (s *Server) buildRoot(_ *exchange, _ *request.Request, format string) (action, error) {
	if a, ok := rootAnswers[format]; ok {
		return a, nil
	}
	return &rootAnswer{format: format}, nil
}

// rootAnswer is the action of GET and HEAD / : the description of the
// schema checkRoot selected, in one version (openapi.Formats). Its
// transaction is the building of the document (into x.body): the content
// PostgREST reads from the database, timed as its transaction is.
type rootAnswer struct{ format string }

// rootAnswers are the root's actions, one per version, so that choosing
// one allocates nothing.
var rootAnswers = map[string]*rootAnswer{
	openapi.Swagger2:  {format: openapi.Swagger2},
	openapi.OpenAPI31: {format: openapi.OpenAPI31},
}

func (*rootAnswer) begin(*Server, *exchange) error { return nil }

// run finds the document, built once per snapshot, schema, version and
// set of privileges, and kept (openapi.Cache, openapi-cache-max-bytes):
// building it walks the whole schema (BenchmarkServeRootLarge). One the
// cache cannot keep is built as respond writes it (rootstream.go).
func (a *rootAnswer) run(s *Server, x *exchange) error {
	scheme, host, basePath := s.cfg.OpenAPIServer()
	if a.format == openapi.OpenAPI31 && s.cfg.OpenAPIServerProxyURI == "" {
		// Without a public URI, the 3.1 document's server is where it
		// was fetched from (a relative "/"), not server-host's address,
		// which a wildcard host makes unreachable (0.0.0.0).
		scheme, host, basePath = "", "", ""
	}
	doc, err := s.rootDocs.Document(x.r.Context(), x.snap, openapi.Options{
		Format:           a.format,
		Anonymous:        s.cfg.DBAnonRole != "",
		Schema:           x.schema,
		Version:          snapshot.SVCVersion,
		Role:             x.tx.Role,
		FollowPrivileges: s.cfg.OpenAPIMode != config.OpenAPIIgnorePrivileges,
		Security:         s.cfg.OpenAPISecurityActive,
		Scheme:           scheme,
		Host:             host,
		BasePath:         basePath,
		Vendor:           s.names.Vendor,
	})
	if err != nil {
		return rootFailure(x, err)
	}
	x.doc, x.body = doc, doc.Body
	return nil
}

func (a *rootAnswer) respond(s *Server, x *exchange) error {
	h := x.w.Header()
	if len(s.cfg.DBSchemas) > 1 {
		h.Set("Content-Profile", x.schema)
	}
	if a.format == openapi.OpenAPI31 {
		h.Set("Content-Type", openAPI31Type)
	} else {
		h.Set("Content-Type", openAPIType)
	}
	if x.body == nil {
		return s.writeDocument(x)
	}
	h.Set("Content-Length", strconv.Itoa(len(x.body)))
	x.w.WriteHeader(http.StatusOK)
	if x.r.Method != http.MethodHead {
		// The server holds what is written before the header leaves
		// (a copy, http1's maxHeldBody): its first streamChunk sends
		// the header, and the rest of the kept document is written
		// from where the cache keeps it, never copied per request.
		first := min(len(x.body), streamChunk)
		if _, err := x.w.Write(x.body[:first]); err == nil {
			x.w.Write(x.body[first:])
		}
	}
	return nil
}

// serveRootSpec answers / with the db-root-spec function's result. The
// root's media types are negotiated first; the call itself then runs as
// an ordinary JSON call (query parameters become arguments), and a
// successful answer is labelled as the root description, unless the
// client asked for application/json (request.NegotiateRootSpec).
func (s *Server) serveRootSpec(w http.ResponseWriter, r *http.Request) {
	asJSON, err := request.NegotiateRootSpec(s.names, strings.Join(r.Header.Values("Accept"), ", "))
	if err != nil {
		writeError(w, s.names, s.log, err)
		return
	}
	call := r.Clone(r.Context())
	call.Header.Set("Accept", "application/json")
	if asJSON {
		serve(s, w, call, &s.routes.call, s.cfg.DBRootSpec)
		return
	}
	serve(s, &rootSpecWriter{ResponseWriter: w}, call, &s.routes.call, s.cfg.DBRootSpec)
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
