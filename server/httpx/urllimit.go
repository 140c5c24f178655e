package httpx

import (
	"log/slog"
	"net/http"

	"github.com/svc-dev/svc/server/apierr"
)

// LimitURL refuses (414 SVC100, as verbose as v) a request whose path and query string
// exceed limit (server-max-url-bytes), before routing or parsing spend any work on
// it. net/http bounds the request line only by server-max-header-bytes,
// which is sized for headers and cookies, not for a query to parse. As
// with request.Limits, zero (only a hand-built Config has it) bounds nothing.
func LimitURL(limit int, names apierr.Naming, v apierr.Verbosity, log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := uriLength(r); limit > 0 && n > limit {
			apierr.URLTooLong(n, limit).Write(w, names, v, log)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// uriLength is the length of the path and query string as received; the
// request target net/http keeps costs nothing to measure, unlike
// rebuilding it from r.URL, which only handlers called directly need.
func uriLength(r *http.Request) int {
	if r.RequestURI != "" {
		return len(r.RequestURI)
	}
	return len(r.URL.RequestURI())
}
