package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/svc-dev/svc/server/apierr"
)

// skew is how far apart the issuer's clock and ours may be: exp, nbf and
// iat are each given this much slack, as PostgREST gives them.
const skew = 30 * time.Second

// payload is the claims as golang-jwt decodes them. Its UnmarshalJSON
// keeps the payload text for request.jwt.claims and splits the top level
// once; the checks read from that, so a token's JSON is parsed once. It
// implements jwt.Claims only to be accepted by the parser: the parser's own
// claims validation is off (it would disagree with PostgREST on messages,
// skew and types).
type payload struct {
	raw     []byte
	members map[string]json.RawMessage
}

var errNotObject = errors.New("the JWT payload is not a JSON object")

// UnmarshalJSON implements json.Unmarshaler.
func (p *payload) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '{' {
		return errNotObject // the decoder has trimmed leading space; "null" lands here too
	}
	if err := json.Unmarshal(b, &p.members); err != nil {
		return err
	}
	p.raw = append([]byte(nil), b...)
	return nil
}

func (p *payload) GetExpirationTime() (*jwt.NumericDate, error) { return nil, nil }
func (p *payload) GetIssuedAt() (*jwt.NumericDate, error)       { return nil, nil }
func (p *payload) GetNotBefore() (*jwt.NumericDate, error)      { return nil, nil }
func (p *payload) GetIssuer() (string, error)                   { return "", nil }
func (p *payload) GetSubject() (string, error)                  { return "", nil }
func (p *payload) GetAudience() (jwt.ClaimStrings, error)       { return nil, nil }

// check applies PostgREST's claims rules, in PostgREST's order (exp, nbf,
// iat, aud, then the role), to a payload whose signature has been verified.
func (p *payload) check(now time.Time, audience string, role ClaimPath) (Identity, *apierr.Error) {
	id := Identity{Claims: p.raw}
	t := unixSeconds(now)
	exp, hasExp, err := p.number("exp")
	if err != nil {
		return Identity{}, err
	}
	if hasExp {
		if t > exp+skew.Seconds() {
			return Identity{}, rejectFor(msgExpired, fmt.Errorf("expired at %s", timeOf(exp).Format(time.RFC3339)))
		}
		id.Expires = timeOf(exp)
	}
	if nbf, ok, err := p.number("nbf"); err != nil {
		return Identity{}, err
	} else if ok && t < nbf-skew.Seconds() {
		return Identity{}, reject(msgNotYetValid)
	}
	if iat, ok, err := p.number("iat"); err != nil {
		return Identity{}, err
	} else if ok && t < iat-skew.Seconds() {
		return Identity{}, reject(msgIssuedFuture)
	}
	if err := p.checkAudience(audience); err != nil {
		return Identity{}, err
	}
	if v, ok := role.lookup(p.members); ok {
		if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &id.Role) != nil {
			return Identity{}, reject(msgRoleType)
		}
	}
	var top string
	if v, ok := p.members["role"]; ok && id.Role != "" && json.Unmarshal(v, &top) == nil {
		id.roleClaimed = top == id.Role
	}
	return id, nil
}

// ClaimsAs returns the claims SQL reads in request.jwt.claims for a
// request that runs as role: the token's claims (none without a token)
// with "role" set to role, as PostgREST hands them over. A policy can then
// read the role from the claims whether it came from the token, from
// another claim (jwt-role-claim-key) or from db-anon-role.
func (id Identity) ClaimsAs(role string) string {
	if id.roleClaimed && id.Role == role {
		return string(id.Claims) // the usual token: nothing to change
	}
	if len(id.Claims) == 0 {
		return anonymousClaims(role)
	}
	members := map[string]json.RawMessage{}
	if len(id.Claims) > 0 && json.Unmarshal(id.Claims, &members) != nil {
		members = map[string]json.RawMessage{} // verified claims are an object; never reached
	}
	members["role"], _ = json.Marshal(role)
	out, _ := json.Marshal(members)
	return string(out)
}

// number reads a NumericDate claim: seconds since the epoch, possibly
// fractional. Present but not a number (null included) is a rejection,
// and so is a number past float64's range (1e400): read as ±Inf it would
// make a token that never expires, or a check that never refuses, out of
// a value no issuer writes for a time.
func (p *payload) number(claim string) (float64, bool, *apierr.Error) {
	v, ok := p.members[claim]
	if !ok {
		return 0, false, nil
	}
	if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return 0, false, rejectClaimType(claim)
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		e := rejectClaimType(claim)
		e.Cause = fmt.Errorf("%s %s is no time: %w", claim, v, err)
		return 0, false, e
	}
	return f, true, nil
}

// checkAudience accepts a token without aud, or with a null one or an
// empty list, as PostgREST does: all three name no audience. With one,
// the type is always checked; membership only when jwt-aud is set.
func (p *payload) checkAudience(audience string) *apierr.Error {
	v, ok := p.members["aud"]
	if !ok || string(v) == "null" {
		return nil
	}
	var auds []string
	switch {
	case len(v) > 0 && v[0] == '"':
		auds = make([]string, 1)
		if json.Unmarshal(v, &auds[0]) != nil {
			return reject(msgAudType)
		}
	case len(v) > 0 && v[0] == '[':
		var elems []json.RawMessage
		if json.Unmarshal(v, &elems) != nil {
			return reject(msgAudType)
		}
		auds = make([]string, len(elems))
		for i, e := range elems {
			if len(e) == 0 || e[0] != '"' || json.Unmarshal(e, &auds[i]) != nil {
				return reject(msgAudType) // decoding into a string would let null through as ""
			}
		}
	default:
		return reject(msgAudType)
	}
	if audience == "" || len(auds) == 0 {
		return nil
	}
	for _, a := range auds {
		if a == audience {
			return nil
		}
	}
	return rejectFor(msgAudience, fmt.Errorf("aud %s does not name jwt-aud %q", v, audience))
}

func unixSeconds(t time.Time) float64 {
	return float64(t.Unix()) + float64(t.Nanosecond())/1e9
}

// timeOf converts a NumericDate, clamping values time.Time cannot hold
// (or that no issuer means) to the years 1 and 9999.
func timeOf(seconds float64) time.Time {
	const minUnix, maxUnix = -62135596800, 253402300799
	switch {
	case math.IsNaN(seconds) || seconds <= minUnix:
		return time.Unix(minUnix, 0).UTC()
	case seconds >= maxUnix:
		return time.Unix(maxUnix, 0).UTC()
	}
	whole, frac := math.Modf(seconds)
	return time.Unix(int64(whole), int64(frac*1e9)).UTC()
}

// lastAnonymous holds the claims of the last role requests without a token
// ran as: db-anon-role, the same for every such request until a reload
// changes it, so they share one string.
var lastAnonymous atomic.Pointer[[2]string]

// anonymousClaims is {"role": role}.
func anonymousClaims(role string) string {
	if last := lastAnonymous.Load(); last != nil && last[0] == role {
		return last[1]
	}
	b, _ := json.Marshal(map[string]string{"role": role})
	lastAnonymous.Store(&[2]string{role, string(b)})
	return string(b)
}
