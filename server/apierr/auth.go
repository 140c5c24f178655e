package apierr

import "strings"

// Errors of authentication (SPEC.md "Authentication"). SVC302,
// AnonymousDisabled, lives with the other service errors in codes.go.

// JWTSecretMissing is SVC300: a request carries a JWT but the server has
// no key configured to verify it.
func JWTSecretMissing() *Error {
	return &Error{Status: 500, Code: code("300"), Message: "Server lacks JWT secret"}
}

// InvalidJWT is SVC301: the bearer token was refused. message says why in
// PostgREST's words; details is nil or a value that pins the cause down
// (the offending alg). The challenge repeats message as RFC 6750's
// error_description.
func InvalidJWT(message string, details any) *Error {
	return &Error{Status: 401, Code: code("301"), Message: message, Details: details,
		Headers: map[string]string{
			"WWW-Authenticate": `Bearer error="invalid_token", error_description=` + QuotedString(message),
		}}
}

// QuotedString renders s as an RFC 9110 quoted-string: '"' and '\' are
// backslash-escaped, and control characters, which a quoted-string cannot
// hold and which could split the header, become spaces.
func QuotedString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 && r != '\t' || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
