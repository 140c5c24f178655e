package apierr

import (
	"log/slog"
	"net/http"
)

// Write answers e on w, under naming n, as every SVC endpoint answers its errors: the
// status, e's headers, its advice (AdviceHeader), Proxy-Status naming the code (for a HEAD, or a
// proxy's log, where only headers are read) and the JSON body, as verbose
// as v says (Minimal keeps the advice for the log). A 5xx is
// the server's or the database's fault, so it is logged with its cause.
func (e *Error) Write(w http.ResponseWriter, n Naming, v Verbosity, log *slog.Logger) {
	code := e.CodeIn(n)
	if e.Status >= 500 {
		attrs := []any{"code", code, "status", e.Status, "message", e.Message}
		if e.Cause != nil {
			attrs = append(attrs, "cause", e.Cause.Error())
		}
		log.Error("request failed", attrs...)
	}
	h := w.Header()
	h.Set("Proxy-Status", proxyStatus(n.Product, code))
	for k, v := range e.Headers {
		h.Set(k, v)
	}
	e.writeAdvice(h, code, v, log)
	e.writeTrace(n, log)
	h.Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(e.Status)
	w.Write(e.JSON(n, v))
}
