package server

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/gorilla/mux"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/openapi"
	"github.com/svc-dev/svc/server/openapi/ui"
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/server/shapes"
	"github.com/svc-dev/svc/server/stream"
	"github.com/svc-dev/svc/snapshot"
)

// openAPIType is the Content-Type of the root description.
const openAPIType = "application/openapi+json; charset=utf-8"

// openAPI31Type is the Content-Type of the OpenAPI 3.1 description: the
// version parameter tells it from the Swagger 2.0 one.
const openAPI31Type = "application/openapi+json; version=3.1; charset=utf-8"

// rootRoute is GET and HEAD / : the OpenAPI description.
var rootRoute = route[string]{kind: request.KindRoot, precheck: (*Server).checkRoot, plan: (*Server).planRoot,
	build: (*Server).buildRoot}

// checkRoot selects the schema the root describes, before the role is
// known.
func (s *Server) checkRoot(x *exchange, req *request.Request) (err error) {
	x.schema, err = plan.Schema(req, s.planning)
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
func (s *Server) buildRoot(_ *exchange, _ *request.Request, format string) (action, shapes.Stmts, error) {
	if a, ok := rootAnswers[format]; ok {
		return a, shapes.Stmts{}, nil
	}
	return &rootAnswer{format: format}, shapes.Stmts{}, nil
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
// cache cannot keep is built as respond writes it (writeDocument).
func (a *rootAnswer) run(s *Server, x *exchange, _ shapes.Stmts) error {
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
	if x.r.Method == http.MethodHead {
		// The headers alone, without the document's length, as PostgREST
		// answers a HEAD and SVC a HEAD of a relation: nothing is built
		// only to be measured.
		x.w.WriteHeader(http.StatusOK)
		return nil
	}
	if x.body == nil {
		return s.writeDocument(x)
	}
	h.Set("Content-Length", strconv.Itoa(len(x.body)))
	x.w.WriteHeader(http.StatusOK)
	// The server holds what is written before the header leaves (a copy,
	// http1's maxHeldBody): its first stream.Chunk sends the header, and
	// the rest of the kept document is written from where the cache keeps
	// it, never copied per request.
	first := min(len(x.body), stream.Chunk)
	if _, err := x.w.Write(x.body[:first]); err == nil {
		x.w.Write(x.body[first:])
	}
	return nil
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

// A root document the cache does not hold whole is written as it comes
// (stream.Doc): held up to server-response-buffer-bytes and answered
// whole, with Content-Length, exactly as a kept document, or streamed
// past it; a failure once the header has left cuts the response.

// writeDocument answers x with the document x.doc, whose headers but
// Content-Length are set.
func (s *Server) writeDocument(x *exchange) error {
	d := stream.NewDoc(x.w, &s.streaming)
	defer d.Give()
	ctx := x.r.Context()
	if x.doc.Size >= 0 {
		d.Begin(x.doc.Size)
	}
	if err := x.doc.Write(ctx, d); err != nil {
		if d.Streaming() {
			s.cutDocument(x, d, err)
		}
		return rootFailure(x, err)
	}
	if !d.Streaming() {
		x.w.Header().Set("Content-Length", strconv.Itoa(len(d.Held())))
		x.w.WriteHeader(http.StatusOK)
		x.w.Write(d.Held())
		return nil
	}
	if err := d.End(); err != nil {
		s.cutDocument(x, d, err)
	}
	return nil
}

// rootFailure is the error a root answer fails with: the client gone, or
// the server's fault.
func rootFailure(x *exchange, err error) error {
	if errors.Is(err, dbexec.ErrClientGone) || x.r.Context().Err() != nil {
		return dbexec.ErrClientGone
	}
	return apierr.Internal(err)
}

// cutDocument ends a document whose header has left, after err: the
// connection is closed without the last chunk (http.ErrAbortHandler), so
// that the client sees the document incomplete.
func (s *Server) cutDocument(x *exchange, d *stream.Doc, err error) {
	switch {
	case errors.Is(err, stream.ErrTooSlow):
		s.log.Info("a client read the root document too slowly: it did not take a chunk within server-stream-send-timeout; the response is cut",
			"timeout", d.Timeout().String())
	case errors.Is(err, dbexec.ErrClientGone) || x.r.Context().Err() != nil:
		s.log.Debug("the root document's client left before its end")
	default:
		s.log.Error("the root document failed after its header was sent; the response is cut", "error", err)
	}
	d.Stop()
	d.Give()
	panic(http.ErrAbortHandler)
}
