package httpx

import (
	"net/http"
	"slices"
	"strings"
)

// CORS as PostgREST answers it: any origin unless server-cors-allowed-origins
// lists some, preflights answered before routing, and the response headers
// a browser script needs (Content-Range, Location, ...) exposed. The lists
// are PostgREST's, word for word, so a page written against it sees the
// same answers.
const (
	corsAllowMethods  = "GET, POST, PATCH, PUT, DELETE, OPTIONS, HEAD"
	CORSExposeHeaders = "Content-Encoding, Content-Location, Content-Range, Content-Type, Date, Location, " +
		"Server, Transfer-Encoding, Range-Unit"
	corsMaxAge = "86400" // a day, so a page does not preflight every request
)

// corsSimpleHeaders are the request headers the CORS standard lets any page
// send; a preflight answer names them after the requested ones.
var corsSimpleHeaders = []string{"Accept", "Accept-Language", "Content-Language"}

// CORS wraps next with CORS handling. allowed is the configured origin
// list; empty allows any origin. expose lists the response headers
// browser scripts may read.
func CORS(allowed []string, expose string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The name is canonical, as the parsed header's are: indexing
		// spares Get's check of it on every request.
		origin := ""
		if v := r.Header["Origin"]; len(v) > 0 {
			origin = v[0]
		}
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		allowedOrigin := "*"
		if len(allowed) > 0 {
			// A listed origin is echoed, with credentials allowed; an
			// unlisted one gets no CORS headers and the browser refuses
			// the response, while the request itself is served as usual.
			h.Add("Vary", "Origin")
			if !slices.Contains(allowed, origin) {
				next.ServeHTTP(w, r)
				return
			}
			allowedOrigin = origin
			h.Set("Access-Control-Allow-Credentials", "true")
		}
		h.Set("Access-Control-Allow-Origin", allowedOrigin)
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", corsAllowMethods)
			h.Set("Access-Control-Allow-Headers", preflightHeaders(r.Header.Values("Access-Control-Request-Headers")))
			h.Set("Access-Control-Max-Age", corsMaxAge)
			w.WriteHeader(http.StatusOK)
			return
		}
		h.Set("Access-Control-Expose-Headers", expose)
		next.ServeHTTP(w, r)
	})
}

// preflightHeaders allows Authorization, whatever headers the page asked
// for, then the simple headers not among them: SVC reads its own headers
// (Prefer, Accept-Profile, ...) and ignores the rest, so refusing any would
// only break clients.
func preflightHeaders(requested []string) string {
	out := []string{"Authorization"}
	add := func(name string) {
		if name != "" && !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, name) }) {
			out = append(out, name)
		}
	}
	for _, list := range requested {
		for _, name := range strings.Split(list, ",") {
			add(strings.TrimSpace(name))
		}
	}
	for _, name := range corsSimpleHeaders {
		add(name)
	}
	return strings.Join(out, ", ")
}

// AllowInfoOrigin lets any page read an answer to OPTIONS, as PostgREST's
// answers to OPTIONS all say, preflight or not. With allowed (the
// server-cors-allowed-origins) set the CORS middleware alone decides, so
// an unlisted origin still learns nothing.
func AllowInfoOrigin(h http.Header, allowed []string) {
	if len(allowed) == 0 && h.Get("Access-Control-Allow-Origin") == "" {
		h.Set("Access-Control-Allow-Origin", "*")
	}
}
