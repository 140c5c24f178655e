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
	rt := Router{m}
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
