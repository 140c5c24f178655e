package apierr

import "fmt"

// Errors of the request size limits that are checked before parsing; the
// ones checked on the parsed request are plain ParseErrors.

// URLTooLong is SVC100 answered 414: the path and query string exceed
// server-max-url-bytes, so the request is refused before it is parsed.
func URLTooLong(length, limit int) *Error {
	return &Error{Status: 414, Code: code("100"), Message: fmt.Sprintf("URL longer than %d bytes", limit),
		Details: fmt.Sprintf("The path and query string are %d bytes; server-max-url-bytes allows %d", length, limit)}
}
