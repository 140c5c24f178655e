package apierr

import (
	"fmt"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// HeaderFieldError says why name and value cannot go out as a header
// field (RFC 9110 section 5), or is "" when they can. A function chooses
// headers (response.headers, RAISE SQLSTATE 'SVC00' USING DETAIL): the
// name must be a token, and the value must hold no control character
// but tab, since net/http's header writer would send a NUL as it is and
// turn CR and LF into spaces, sending something other than what the
// function set.
//
// Nor may a function set a field that frames the message or belongs to
// the connection (framingFields): the server writes those for the body
// it sends, and one set by a function would lose the body, hold the
// connection or leave the next pipelined request unanswered.
func HeaderFieldError(name, value string) string {
	if name == "" {
		return "the name is empty"
	}
	for i := 0; i < len(name); i++ {
		if !httpguts.IsTokenRune(rune(name[i])) {
			return fmt.Sprintf("the name holds %q, which a header name cannot", name[i])
		}
	}
	for _, f := range framingFields {
		if strings.EqualFold(name, f) {
			return "it frames the message or governs the connection, which only the server sets"
		}
	}
	for i := 0; i < len(value); i++ {
		if b := value[i]; b < ' ' && b != '\t' || b == 0x7f {
			return fmt.Sprintf("the value holds the control character %q", b)
		}
	}
	return ""
}

// framingFields are the fields that say where a message ends (RFC 9112
// section 6) and the hop-by-hop fields of RFC 9110 section 7.6.1, with
// Keep-Alive and Proxy-Connection, which HTTP/1.0 agents read so.
var framingFields = []string{
	"Content-Length", "Transfer-Encoding", "Trailer",
	"Connection", "Keep-Alive", "Proxy-Connection", "TE", "Upgrade",
}
