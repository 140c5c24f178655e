package observe

import "net/http"

// What an answer depends on besides its URL, declared in Vary so that a
// shared cache keeps apart the answers it must not mix up: a CSV answer
// from a JSON one, a counted or ranged page from the whole (PostgREST's
// "Accept, Prefer, Range"), and, where db-schemas lists several schemas,
// one schema's rows from another's. The profile header that selects the
// schema is the one the method reads (request.Parse): Accept-Profile for
// GET and HEAD, Content-Profile for the others. With one schema served a
// profile header cannot select other rows, and the answer keeps
// PostgREST's value.
var (
	varyOneSchema   = []string{"Accept, Prefer, Range"}
	varyReadProfile = []string{"Accept, Prefer, Range, Accept-Profile"}
	varyBodyProfile = []string{"Accept, Prefer, Range, Content-Profile"}
)

// defaultVary is the Vary of the answers to method, with several
// schemas served or one.
func defaultVary(manySchemas bool, method string) []string {
	switch {
	case !manySchemas:
		return varyOneSchema
	case method == http.MethodGet || method == http.MethodHead:
		return varyReadProfile
	default:
		return varyBodyProfile
	}
}

// addDefaultVary declares vary on an answer that is not an error (errors
// carry Proxy-Status; PostgREST's carry no Vary) and whose Vary no
// function has set through response.headers. The CORS middleware's
// "Vary: Origin" is kept beside it.
func addDefaultVary(h http.Header, vary []string) {
	// Indexed by its canonical name: Get would check the name first.
	if v := h["Proxy-Status"]; len(v) > 0 && v[0] != "" {
		return
	}
	switch v := h["Vary"]; {
	case len(v) == 0:
		h["Vary"] = vary
	case len(v) == 1 && v[0] == "Origin":
		h["Vary"] = []string{"Origin", vary[0]}
	}
}
