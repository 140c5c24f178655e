package httpx

import (
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"

	"github.com/svc-dev/svc/server/apierr"
)

// errPanic is what a caller sees of a panic: the stack goes to the log,
// never to the client.
var errPanic = errors.New("internal error; the server log has the details")

// RecoverPanics answers a panic in next with 500 SVCX00 (its code
// written under names, its body as verbose as verbosity) and logs it with
// its stack, so one bad request never takes the process down nor shows a
// caller the server's internals. http.ErrAbortHandler passes through: it
// is net/http's way to abort a response on purpose.
func RecoverPanics(names apierr.Naming, verbosity apierr.Verbosity, log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			log.Error("panic while serving a request", "method", r.Method, "path", r.URL.Path,
				"panic", v, "stack", string(debug.Stack()))
			apierr.Internal(errPanic).Write(w, names, verbosity, log)
		}()
		next.ServeHTTP(w, r)
	})
}
