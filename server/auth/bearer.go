package auth

import "strings"

// BearerToken reads an Authorization header value. ok is false when there
// is no Bearer credential at all (an empty header, or another scheme such
// as Basic), which PostgREST treats as an anonymous request. The scheme is
// case-insensitive. "Bearer" with nothing after it gives ok true and an
// empty token, which Verify refuses as an empty JWT.
func BearerToken(header string) (token string, ok bool) {
	header = strings.Trim(header, " \t")
	scheme, rest, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.Trim(rest, " \t"), true
}
