package httpx

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gorilla/mux"
)

// The router answers as mux.Router.ServeHTTP would, handing the route's
// variables to the handler instead of the request's context.
func TestRouterAnswersAsMux(t *testing.T) {
	m := mux.NewRouter()
	m.Handle("/{relation}", WithVars(func(w http.ResponseWriter, _ *http.Request, vars map[string]string) {
		w.Header().Set("Target", "relation "+vars["relation"])
	}))
	m.Handle("/rpc/{function}", WithVars(func(w http.ResponseWriter, _ *http.Request, vars map[string]string) {
		w.Header().Set("Target", "function "+vars["function"])
	}))
	m.Methods(http.MethodOptions).Path("/").HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Target", "options root")
	})
	m.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNotFound)
	})
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
		{"GET", "/rpc/../books?id=eq.1", 301, "/books?id=eq.1"},
		{"GET", "//books", 301, "/books"},
		{"GET", "/books/", 404, ""}, // clean, as a trailing slash is kept, and no route's
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			w := httptest.NewRecorder()
			Router{m}.ServeHTTP(w, httptest.NewRequest(tc.method, tc.target, nil))
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
