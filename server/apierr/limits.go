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

// BodyTooLarge is SVC102 answered 413 (RFC 9110 section 15.5.14): the
// body exceeds server-max-body-bytes, a limit of SVC's own. A body that
// is too large is not malformed, and 413 tells a client (or a proxy) that
// sending it again unchanged will not help, where 400 says nothing of
// size.
func BodyTooLarge(limit int) *Error { return BodyOverLimit(limit, "server-max-body-bytes") }

// BodyOverLimit is SVC102 answered 413 for a body past limit bytes, the
// value of the configuration key named.
func BodyOverLimit(limit int, key string) *Error {
	return &Error{Status: 413, Code: code("102"), Message: "Request body too large",
		Details: fmt.Sprintf("The body exceeds %d bytes (%s)", limit, key)}
}

// BodyTimeout is SVC102 answered 408 (RFC 9110 section 15.5.9): the client
// had not sent the whole body when server-read-timeout ran out. What came
// is not malformed, only late, so 400 would send the client looking for a
// fault in it. seconds is the setting, for details.
func BodyTimeout(seconds float64) *Error {
	return &Error{Status: 408, Code: code("102"), Message: "Request body not received in time",
		Details: fmt.Sprintf("The request was not complete within %g seconds (server-read-timeout)", seconds)}
}
