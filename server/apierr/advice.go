package apierr

import (
	"log/slog"
	"net/http"
	"strings"
)

// AdviceHeader carries SVC's own advice on an error answer: what SVC
// knows of the cause that PostgREST's body has no field for (the schema
// snapshot a name was looked up in and how to bring it up to date, a
// setting that looks misspelt). The body stays PostgREST's, field for
// field, because clients compare it and log pipelines parse it; a header
// PostgREST does not send changes nothing they read. Its name is the same
// under both namings, since PostgREST has no such header to be named after.
const AdviceHeader = "SVC-Advice"

// WithAdvice adds advice to e's, after what it already has, and returns e.
func (e *Error) WithAdvice(advice string) *Error {
	if advice == "" {
		return e
	}
	if e.Advice != "" {
		e.Advice += " " + advice
	} else {
		e.Advice = advice
	}
	return e
}

// writeAdvice sends e's advice in AdviceHeader, unless v is Minimal, and
// logs it with code (as the answer writes it), so that an operator who
// reads only the log sees it too.
func (e *Error) writeAdvice(h http.Header, code string, v Verbosity, log *slog.Logger) {
	if e.Advice == "" {
		return
	}
	if v == Verbose {
		h.Set(AdviceHeader, headerSafe(e.Advice))
	}
	log.Info("advice", "code", code, "status", e.Status, "advice", e.Advice)
}

// headerSafe turns the bytes a header value may not hold (control
// characters; advice quotes names from the request) into spaces.
func headerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
