package httpx

import (
	"errors"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/gorilla/mux"
)

// Router serves the API's routes from a gorilla/mux route table. It does
// what mux.Router.ServeHTTP does (clean the path, redirecting to the
// clean one; match; answer 404 or 405), except that a Segment route's
// handler is given its segment as an argument rather than in a copy of
// the request with a new context: mux makes two such copies per request.
// The table takes no mux middleware (mux.Router.Use): a Segment route
// added first is matched before the table is (see lead).
type Router struct {
	*mux.Router
	// lead is the Segment route added to an empty table, if one was: the
	// table would try it first and take it whenever it matches, so Router
	// tries it itself, without the table's match and its recycled state,
	// on the route most requests take.
	lead *Segment
}

// Segment routes the paths of one segment after Prefix, which mux's
// template Prefix+"{name}" matches, to Handle with that segment (decoded,
// as the template's variable is). It matches with a string comparison
// where the template runs a regular expression and fills a map, on the
// route every request of the API takes. Add it with Router.Segment.
type Segment struct {
	Prefix string
	Handle func(w http.ResponseWriter, r *http.Request, segment string)
}

// Segment adds the route s after the routes r has.
func (rt *Router) Segment(s Segment) {
	if rt.lead == nil && rt.empty() {
		rt.lead = &s
	}
	rt.MatcherFunc(func(r *http.Request, _ *mux.RouteMatch) bool {
		_, ok := s.of(r.URL.Path)
		return ok
	}).Handler(s)
}

// empty reports whether the table has no route yet.
func (rt *Router) empty() bool {
	empty := true
	rt.Walk(func(*mux.Route, *mux.Router, []*mux.Route) error {
		empty = false
		return errFound
	})
	return empty
}

// errFound ends a walk of the table at its first route.
var errFound = errors.New("a route")

// of returns the segment of p, if p is a path s routes.
func (s Segment) of(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, s.Prefix)
	return rest, ok && rest != "" && !strings.Contains(rest, "/")
}

// ServeHTTP only lets Segment stand where mux expects a handler; Router
// calls Handle with the segment.
func (s Segment) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	seg, _ := s.of(r.URL.Path)
	s.Handle(w, r, seg)
}

// ServeHTTP answers as mux.Router.ServeHTTP would, handing a Segment
// route's handler its segment.
func (rt Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p := cleanPath(r.URL.Path); p != r.URL.Path {
		u := *r.URL
		u.Path = p
		w.Header().Set("Location", u.String())
		w.WriteHeader(http.StatusMovedPermanently)
		return
	}
	if rt.lead != nil {
		if seg, ok := rt.lead.of(r.URL.Path); ok {
			rt.lead.Handle(w, r, seg)
			return
		}
	}
	m := matches.Get().(*mux.RouteMatch)
	defer putMatch(m)
	if !rt.Match(r, m) {
		if m.MatchErr == mux.ErrMethodMismatch {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		http.NotFound(w, r)
		return
	}
	m.Handler.ServeHTTP(w, r)
}

// matches recycles the matches Router.ServeHTTP fills: a match escapes to
// the heap through mux's matcher interface, and mux makes it a map of
// variables, two allocations per request otherwise. Router hands no
// handler the match or its variables, so none outlives its request.
var matches = sync.Pool{New: func() any { return &mux.RouteMatch{Vars: map[string]string{}} }}

// putMatch empties m and gives it back to matches.
func putMatch(m *mux.RouteMatch) {
	vars := m.Vars
	clear(vars)
	*m = mux.RouteMatch{Vars: vars}
	matches.Put(m)
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
