package httpx

import (
	"net/http"
	"path"

	"github.com/gorilla/mux"
)

// Router serves the API's routes from a gorilla/mux route table. It does
// what mux.Router.ServeHTTP does (clean the path, redirecting to the
// clean one; match; answer 404 or 405), except that a route's handler is
// given the route's variables as an argument rather than in a copy of
// the request with a new context: mux makes two such copies per request.
type Router struct {
	*mux.Router
}

// WithVars is a route handler taking the route's variables.
type WithVars func(w http.ResponseWriter, r *http.Request, vars map[string]string)

// ServeHTTP only lets WithVars stand where mux expects a handler; Router
// calls it with the variables.
func (h WithVars) ServeHTTP(w http.ResponseWriter, r *http.Request) { h(w, r, nil) }

// ServeHTTP answers as mux.Router.ServeHTTP would, handing a WithVars
// handler the route's variables.
func (rt Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p := cleanPath(r.URL.Path); p != r.URL.Path {
		u := *r.URL
		u.Path = p
		w.Header().Set("Location", u.String())
		w.WriteHeader(http.StatusMovedPermanently)
		return
	}
	var m mux.RouteMatch
	if !rt.Match(r, &m) {
		if m.MatchErr == mux.ErrMethodMismatch {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		http.NotFound(w, r)
		return
	}
	if h, ok := m.Handler.(WithVars); ok {
		h(w, r, m.Vars)
		return
	}
	m.Handler.ServeHTTP(w, r)
}

// cleanPath is mux's: the canonical form of path p, a trailing slash
// kept.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}
