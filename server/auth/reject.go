package auth

import (
	"strconv"

	"github.com/svc-dev/svc/server/apierr"
)

// The reasons a token is refused, worded as PostgREST words them so that
// clients written against PostgREST recognise them.
const (
	msgEmpty        = "Empty JWT is sent in Authorization header"
	msgUndecodable  = "JWT couldn't be decoded"
	msgAlgorithm    = "Wrong or unsupported encoding algorithm"
	msgNoKey        = "No suitable key or wrong key type"
	msgCrypto       = "JWT cryptographic operation failed"
	msgExpired      = "JWT expired"
	msgNotYetValid  = "JWT not yet valid"
	msgIssuedFuture = "JWT issued at future"
	msgAudience     = "JWT not in audience"
	msgAudType      = "The JWT 'aud' claim must be a string or an array of strings"
	msgRoleType     = "The JWT role claim must be a string"
	msgCrit         = "JWT header lists critical extensions that are not supported"
)

// reject builds a fresh error each time: an *apierr.Error carries a header
// map a caller may amend, so none is shared between requests.
func reject(message string) *apierr.Error {
	return apierr.InvalidJWT(message, nil)
}

// rejectFor is reject with what the server's log says of it (Cause): the
// detail an operator needs to find a token's fault (which key, which
// time, which audience), which the client's message does not carry.
func rejectFor(message string, cause error) *apierr.Error {
	e := reject(message)
	e.Cause = cause
	return e
}

func rejectParts(n int) *apierr.Error {
	return apierr.InvalidJWT("Expected 3 parts in JWT; got "+strconv.Itoa(n), nil)
}

// rejectAlg names the offending alg in details; alg is the header's value
// as decoded (usually a string), nil when the header has none.
func rejectAlg(alg any) *apierr.Error {
	return apierr.InvalidJWT(msgAlgorithm, alg)
}

func rejectClaimType(claim string) *apierr.Error {
	return apierr.InvalidJWT("The JWT '"+claim+"' claim must be a number", nil)
}

// rejectCrit names the token's crit header in details.
func rejectCrit(crit any) *apierr.Error {
	return apierr.InvalidJWT(msgCrit, crit)
}
