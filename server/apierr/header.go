package apierr

import (
	"fmt"

	"golang.org/x/net/http/httpguts"
)

// HeaderFieldError says why name and value cannot go out as a header
// field (RFC 9110 section 5), or is "" when they can. A function chooses
// headers (response.headers, RAISE SQLSTATE 'SVC00' USING DETAIL): the
// name must be a token, and the value must hold no control character
// but tab, since net/http's header writer would send a NUL as it is and
// turn CR and LF into spaces, sending something other than what the
// function set.
func HeaderFieldError(name, value string) string {
	if name == "" {
		return "the name is empty"
	}
	for i := 0; i < len(name); i++ {
		if !httpguts.IsTokenRune(rune(name[i])) {
			return fmt.Sprintf("the name holds %q, which a header name cannot", name[i])
		}
	}
	for i := 0; i < len(value); i++ {
		if b := value[i]; b < ' ' && b != '\t' || b == 0x7f {
			return fmt.Sprintf("the value holds the control character %q", b)
		}
	}
	return ""
}
