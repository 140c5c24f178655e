package auth

import (
	"github.com/golang-jwt/jwt/v5"
)

// keySet picks the keys a token may be checked with: the configured ones
// (jwt-secret) and, with jwt-jwks-url, those the endpoint currently serves.
type keySet struct {
	static []key
	remote *remoteKeys // nil without jwt-jwks-url
}

// candidates returns the key material to try for a token signed with alg.
// A token that names a kid is checked with the keys of that kid, or, when
// no key has it, with the keys that accept any kid; a token without kid with
// every key. Either way only keys that fit alg are kept, so a key the kid
// selects but whose type or "alg" does not match gives no candidate rather
// than a fallback to some other key.
func (s keySet) candidates(alg string, kid string, hasKID bool) []jwt.VerificationKey {
	var out []jwt.VerificationKey
	add := func(ks []key, keep func(key) bool) {
		for _, k := range ks {
			if keep(k) && k.fits(alg) {
				out = append(out, k.material)
			}
		}
	}
	if !hasKID {
		all := func(key) bool { return true }
		add(s.static, all)
		if s.remote != nil {
			add(s.remote.all(), all)
		}
		return out
	}
	named := func(k key) bool { return k.kid == kid }
	if matchesKID(s.static, kid) {
		add(s.static, named)
		return out
	}
	if s.remote != nil {
		if k, ok := s.remote.byKID(kid); ok {
			add([]key{k}, named)
			return out
		}
	}
	wildcard := func(k key) bool { return k.anyKID }
	add(s.static, wildcard)
	if s.remote != nil {
		add(s.remote.all(), wildcard)
	}
	return out
}

func matchesKID(keys []key, kid string) bool {
	for _, k := range keys {
		if k.kid == kid && !k.anyKID {
			return true
		}
	}
	return false
}

// keyfunc adapts candidates to golang-jwt: one key is returned as is,
// several as a VerificationKeySet (tried in turn), none is a rejection.
func (s keySet) keyfunc(t *jwt.Token) (any, error) {
	alg := t.Method.Alg()
	kidValue, hasKID := t.Header["kid"]
	kid, isString := kidValue.(string)
	if hasKID && !isString {
		return nil, reject(msgNoKey)
	}
	keys := s.candidates(alg, kid, hasKID)
	switch len(keys) {
	case 0:
		return nil, reject(msgNoKey)
	case 1:
		return keys[0], nil
	default:
		return jwt.VerificationKeySet{Keys: keys}, nil
	}
}
