// Package auth verifies the JWT a request presents and says who the caller
// is: the role to switch to and the claims to hand to SQL as
// request.jwt.claims.
//
// It owns the key configuration (jwt-secret as a shared secret, a JWK or a
// JWK Set; jwt-jwks-url fetched and refreshed with keyfunc/v3), the choice
// of key for a token (kid, key type, the JWK's own alg), the claims checks
// PostgREST makes (exp, nbf, iat with a 30-second skew, aud), the
// jwt-role-claim-key grammar, and a cache of verified tokens bounded by
// count and by an estimate of its bytes (a token may be as large as its
// header).
//
// It must not: know about HTTP beyond reading an Authorization header
// value, talk to the database, decide what an anonymous request may do
// (that is the caller's, with db-anon-role), or log tokens or claims. Every
// rejection is an *apierr.Error (SVC301) whose message tells the client
// what is wrong with its token and nothing about the server's keys.
//
// Costs (BenchmarkVerifyHS256, BenchmarkVerifyRS256 measure them): a cache
// hit is one LRU lookup under a mutex, with no allocation, no signature
// check and no JSON parse. A miss decodes the header and the payload (for
// HS256 most of its cost, and most of its allocations) and checks one
// signature per candidate key (RS256's check costs several times that).
// With jwt-jwks-url, a token naming an unknown kid may hold its request
// while the key set is fetched again, at most once per five minutes
// (keyfunc's rate limit) and for at most ten seconds.
package auth
