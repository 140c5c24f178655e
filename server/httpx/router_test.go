package httpx

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/gorilla/mux"
)

// The router answers as mux.Router.ServeHTTP would, handing a segment
// route's segment to the handler instead of the request's context.
func TestRouterAnswersAsMux(t *testing.T) {
	m := mux.NewRouter()
	rt := Router{Router: m}
	rt.Segment(Segment{Prefix: "/", Handle: func(w http.ResponseWriter, _ *http.Request, relation string) {
		w.Header().Set("Target", "relation "+relation)
	}})
	rt.Segment(Segment{Prefix: "/rpc/", Handle: func(w http.ResponseWriter, _ *http.Request, function string) {
		w.Header().Set("Target", "function "+function)
	}})
	m.Methods(http.MethodOptions).Path("/").HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Target", "options root")
	})
	m.Path("/x/{id}/y").HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Target", "template")
	})
	m.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNotFound)
	})
	// The cases run in order on one goroutine, so each finds the match
	// the one before it used (recycled): what it held must not carry over.
	for _, tc := range []struct {
		method, target string
		status         int
		header         string // Target, or Location for a redirect
	}{
		{"GET", "/books?id=eq.1", 200, "relation books"},
		{"POST", "/rpc/add", 200, "function add"},
		{"OPTIONS", "/", 200, "options root"},
		{"GET", "/", 405, ""}, // the path matches a route of another method
		{"GET", "/a/b/c", 404, ""},
		{"GET", "/", 405, ""},
		{"GET", "/x/1/y", 200, "template"},
		{"GET", "/books", 200, "relation books"},
		{"GET", "/rpc/../books?id=eq.1", 301, "/books?id=eq.1"},
		{"GET", "//books", 301, "/books"},
		{"GET", "/books/", 404, ""}, // clean, as a trailing slash is kept, and no route's
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			w := httptest.NewRecorder()
			rt.ServeHTTP(w, httptest.NewRequest(tc.method, tc.target, nil))
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d", w.Code, tc.status)
			}
			got := w.Header().Get("Target")
			if tc.status == 301 {
				got = w.Header().Get("Location")
			}
			if got != tc.header {
				t.Errorf("got %q, want %q", got, tc.header)
			}
		})
	}
}

// TestRouterLeadIsFirstRoute: a segment route is tried ahead of the table
// only when it is the table's first route; one added after another route
// (the reference page's, say) yields the paths that route takes.
func TestRouterLeadIsFirstRoute(t *testing.T) {
	target := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) { w.Header().Set("Target", name) }
	}
	relation := Segment{Prefix: "/", Handle: func(w http.ResponseWriter, _ *http.Request, relation string) {
		w.Header().Set("Target", "relation "+relation)
	}}

	first := Router{Router: mux.NewRouter()}
	first.Segment(relation)
	first.Path("/docs").Handler(target("page")) // never reached: the segment route comes first, in mux too
	second := Router{Router: mux.NewRouter()}
	second.Path("/docs").Handler(target("page"))
	second.Segment(relation)
	if first.lead == nil || second.lead != nil {
		t.Fatalf("lead set: first %v, second %v; want only the first's", first.lead != nil, second.lead != nil)
	}
	for _, tc := range []struct {
		rt           Router
		target, want string
	}{
		{first, "/docs", "relation docs"},
		{first, "/books", "relation books"},
		{second, "/docs", "page"},
		{second, "/books", "relation books"},
	} {
		w := httptest.NewRecorder()
		tc.rt.ServeHTTP(w, httptest.NewRequest("GET", tc.target, nil))
		mw := httptest.NewRecorder()
		tc.rt.Router.ServeHTTP(mw, httptest.NewRequest("GET", tc.target, nil))
		if got := w.Header().Get("Target"); got != tc.want || w.Code != http.StatusOK {
			t.Errorf("%s: %d %q, want 200 %q", tc.target, w.Code, got, tc.want)
		}
		if got := mw.Header().Get("Target"); got != tc.want {
			t.Errorf("%s: mux itself routes to %q, want %q", tc.target, got, tc.want)
		}
	}
}

// TestSegmentMatchesAsTemplate holds a segment route to the mux template
// it stands for: the same paths, the same segment as the variable.
func TestSegmentMatchesAsTemplate(t *testing.T) {
	for _, prefix := range []string{"/", "/rpc/"} {
		seg := Segment{Prefix: prefix}
		tmpl := mux.NewRouter()
		tmpl.Handle(prefix+"{name}", http.NotFoundHandler())
		for _, p := range []string{
			"/", "//", "/books", "/books/", "/a/b", "/rpc", "/rpc/", "/rpc/add", "/rpc/add/", "/rpc//add",
			"/ünïcode", "/with space", "/line\nbreak", "/tab\t", "/\xff\xfe", "/%2F", "/a%2Fb", "/rpc/%", "/.", "/..",
			"/rpc/a.b", "/x?y", "/x#y", "/rpc/\x00",
		} {
			r := &http.Request{Method: "GET", URL: &url.URL{Path: p}}
			var m mux.RouteMatch
			want := tmpl.Match(r, &m)
			got, ok := seg.of(p)
			if ok != want || ok && got != m.Vars["name"] {
				t.Errorf("%q under %q: segment %q %v, the template %q %v", p, prefix, got, ok, m.Vars["name"], want)
			}
		}
	}
}
