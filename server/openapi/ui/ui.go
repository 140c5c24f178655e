// Package ui serves the API reference page of openapi-ui-path: Swagger UI
// (embedded in the binary, see static/README.md for its version and
// licence) showing the root's OpenAPI 3.1 description, whose "try it"
// calls the API the page is served by.
//
// The page asks no other host for anything, and its
// Content-Security-Policy lets it ask none: scripts, styles and requests
// go to the page's own origin only (images may also be data: URIs, which
// Swagger UI's icons are). It knows nothing of the API itself: it fetches
// the description as any client does.
package ui

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed static
var static embed.FS

// contentSecurityPolicy allows the page what Swagger UI needs from its own
// origin and nothing from elsewhere: no inline script, no other host, no
// framing by another site.
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; object-src 'none'; " +
	"base-uri 'self'; form-action 'self'; frame-ancestors 'self'"

// files are the page's files served below the page, with their types.
var files = map[string]string{
	"swagger-ui-bundle.js": "text/javascript; charset=utf-8",
	"swagger-ui.css":       "text/css; charset=utf-8",
	"init.js":              "text/javascript; charset=utf-8",
}

var index = template.Must(template.ParseFS(static, "static/index.html"))

// Handler serves the page at prefix + "/" and its files below it; prefix
// itself redirects there, so the page's relative links resolve below it.
// prefix is openapi-ui-path: absolute, without a trailing slash.
func Handler(prefix string) http.Handler {
	// The page is depth levels below the API's root: "/docs/" is one.
	depth := strings.Count(prefix, "/")
	var page bytes.Buffer
	if err := index.Execute(&page, struct{ Root string }{strings.Repeat("../", depth)}); err != nil {
		panic(err) // the template is embedded: a failure is a build mistake
	}
	body := page.Bytes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "the API reference page is read with GET", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		name, ok := strings.CutPrefix(r.URL.Path, prefix)
		switch {
		case !ok:
			http.NotFound(w, r)
		case name == "":
			// A relative Location: behind a proxy that moves the API
			// under a base path, an absolute one would leave it.
			h.Set("Location", path.Base(prefix)+"/")
			w.WriteHeader(http.StatusMovedPermanently)
		case name == "/" || name == "/index.html":
			serve(w, r, "index.html", "text/html; charset=utf-8", body)
		default:
			typ, known := files[name[1:]]
			if !known {
				http.NotFound(w, r)
				return
			}
			data, err := fs.ReadFile(static, "static/"+name[1:])
			if err != nil {
				http.NotFound(w, r)
				return
			}
			serve(w, r, name[1:], typ, data)
		}
	})
}

// serve answers with data, letting http.ServeContent handle HEAD, ranges
// and conditional requests; the files change only with the binary.
func serve(w http.ResponseWriter, r *http.Request, name, typ string, data []byte) {
	w.Header().Set("Content-Type", typ)
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}
