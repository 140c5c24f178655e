package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/svc-dev/svc/server/apierr"
)

// Options is the JWT configuration, from the configuration keys of the
// same names.
type Options struct {
	// Secret is jwt-secret: a shared secret of at least 32 characters, or a
	// JWK, or a JWK Set, as JSON text.
	Secret string
	// SecretIsBase64 is jwt-secret-is-base64: Secret is base64 (standard or
	// URL alphabet, padded or not) and is decoded before anything else.
	SecretIsBase64 bool
	// Audience is jwt-aud; "" accepts any audience.
	Audience string
	// RoleClaimKey is jwt-role-claim-key, in PostgREST's syntax; "" means ".role".
	RoleClaimKey string
	// JWKSURL is jwt-jwks-url: a JWKS endpoint, fetched and refreshed while
	// the Verifier runs, so keys rotate without a restart.
	JWKSURL string
	// CacheMaxEntries is jwt-cache-max-entries; 0 disables the cache.
	CacheMaxEntries int
	// CacheMaxBytes is jwt-cache-max-bytes, what the cache's entries may
	// hold, estimated; 0 disables the cache.
	CacheMaxBytes int
	// HTTPClient fetches the JWKS; nil is http.DefaultClient.
	HTTPClient *http.Client
	// Now is the clock, for tests; nil is time.Now.
	Now func() time.Time
}

// Identity is who a verified token says the caller is.
type Identity struct {
	// Role is the value of the role claim; "" when the claim is absent.
	Role string
	// Claims is the decoded payload, a JSON object text, for
	// request.jwt.claims. It may be shared with the cache: do not modify it.
	Claims []byte
	// Expires is the token's exp; zero when it has none.
	Expires time.Time
	// roleClaimed is whether Claims hold Role as their top-level "role",
	// so that ClaimsAs can hand them over as they are.
	roleClaimed bool
}

// Verifier checks bearer tokens against the configured keys and claims
// rules. It is safe for concurrent use.
type Verifier struct {
	parser   *jwt.Parser
	algs     []string // what the parser accepts: for Wrong-algorithm messages
	keys     keySet
	audience string
	role     ClaimPath
	cache    *cache // nil when disabled
	now      func() time.Time
	stop     context.CancelFunc
}

// Check validates o as New does, in the same order, without fetching a
// JWKS or starting anything: for reporting configuration errors before
// the server starts. TestNewErrors holds the two to the same errors.
func Check(o Options) error {
	if o.Secret == "" && o.JWKSURL == "" {
		return nil
	}
	if _, err := ParseRoleClaimKey(o.RoleClaimKey); err != nil {
		return err
	}
	if o.CacheMaxEntries < 0 {
		return errCacheEntries
	}
	if o.CacheMaxBytes < 0 {
		return errCacheBytes
	}
	if o.Secret != "" {
		if _, err := secretKeys(o.Secret, o.SecretIsBase64); err != nil {
			return err
		}
	}
	if o.JWKSURL != "" {
		return checkJWKSURL(o.JWKSURL)
	}
	return nil
}

var (
	errCacheEntries = errors.New("jwt-cache-max-entries: must not be negative")
	errCacheBytes   = errors.New("jwt-cache-max-bytes: must not be negative")
)

// New validates o and builds a Verifier. Errors are configuration errors
// naming the key at fault. It returns (nil, nil) when neither Secret nor
// JWKSURL is set: no JWT is configured. With JWKSURL it fetches the key set
// before returning (up to ten seconds) and keeps refreshing it until ctx
// ends or Close is called.
func New(ctx context.Context, o Options) (*Verifier, error) {
	if o.Secret == "" && o.JWKSURL == "" {
		return nil, nil
	}
	role, err := ParseRoleClaimKey(o.RoleClaimKey)
	if err != nil {
		return nil, err
	}
	if o.CacheMaxEntries < 0 {
		return nil, errCacheEntries
	}
	if o.CacheMaxBytes < 0 {
		return nil, errCacheBytes
	}
	v := &Verifier{audience: o.Audience, role: role, now: o.Now, stop: func() {}}
	if v.now == nil {
		v.now = time.Now
	}
	if o.Secret != "" {
		if v.keys.static, err = secretKeys(o.Secret, o.SecretIsBase64); err != nil {
			return nil, err
		}
	}
	v.algs = keyAlgs(v.keys.static)
	if o.JWKSURL != "" {
		// The endpoint's key types are unknown until fetched and may change,
		// so every supported alg passes the parser; key.fits still keeps
		// each key to the algorithms of its type.
		v.algs = supportedAlgs
		refreshCtx, stop := context.WithCancel(ctx)
		if v.keys.remote, err = newRemoteKeys(refreshCtx, o.JWKSURL, o.HTTPClient); err != nil {
			stop()
			return nil, err
		}
		v.stop = stop
	}
	if o.CacheMaxEntries > 0 && o.CacheMaxBytes > 0 {
		if v.cache, err = newCache(o.CacheMaxEntries, o.CacheMaxBytes); err != nil {
			v.stop()
			return nil, err
		}
	}
	v.parser = jwt.NewParser(jwt.WithValidMethods(v.algs), jwt.WithoutClaimsValidation())
	return v, nil
}

// Close stops refreshing the JWKS. Verify keeps working with the keys last
// fetched. Close on a nil Verifier does nothing.
func (v *Verifier) Close() {
	if v != nil {
		v.stop()
	}
}

// Verify checks token (the credential of a Bearer header) and returns the
// caller's identity. The error is always an *apierr.Error: SVC301 with the
// reason, or SVC300 when v is nil (a token arrived but no JWT is
// configured), so the caller may call Verify without checking for nil.
func (v *Verifier) Verify(token string) (Identity, error) {
	id, err := v.verify(token)
	if err != nil {
		return Identity{}, err
	}
	return id, nil
}

// verify returns the concrete type, so that Verify never wraps a nil
// *apierr.Error in a non-nil error.
func (v *Verifier) verify(token string) (Identity, *apierr.Error) {
	if token == "" {
		return Identity{}, reject(msgEmpty)
	}
	if v == nil {
		// Without a key nothing can be verified (SVC300, the server's
		// fault), but a credential that is no JWT at all is the
		// caller's, whatever the configuration.
		if rejection := malformed(token); rejection != nil {
			return Identity{}, rejection
		}
		return Identity{}, apierr.JWTSecretMissing()
	}
	now := v.now()
	if v.cache != nil {
		if id, ok := v.cache.get(token, now); ok {
			return id, nil
		}
	}
	if n := strings.Count(token, ".") + 1; n != 3 {
		return Identity{}, rejectParts(n)
	}
	var p payload
	parsed, err := v.parser.ParseWithClaims(token, &p, v.keyfunc)
	if err != nil {
		return Identity{}, v.classify(parsed, err)
	}
	if p.raw == nil {
		return Identity{}, reject(msgUndecodable) // a payload of "null" never reached UnmarshalJSON
	}
	id, rejection := p.check(now, v.audience, v.role)
	if rejection != nil {
		return Identity{}, rejection
	}
	if v.cache != nil {
		v.cache.put(token, id, now)
	}
	return id, nil
}

// keyfunc refuses a token whose header lists critical extensions (crit),
// since SVC understands none and RFC 7515 (4.1.11) requires such a token
// be refused, before it looks up the keys.
func (v *Verifier) keyfunc(t *jwt.Token) (any, error) {
	if crit, ok := t.Header["crit"]; ok {
		return nil, rejectCrit(crit)
	}
	return v.keys.keyfunc(t)
}

// malformed refuses a token that is no JWS in compact form: three parts
// of unpadded base64url, the first a JSON object.
func malformed(token string) *apierr.Error {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return rejectParts(len(parts))
	}
	for _, part := range parts {
		if _, err := base64.RawURLEncoding.DecodeString(part); err != nil {
			return reject(msgUndecodable)
		}
	}
	header, _ := base64.RawURLEncoding.DecodeString(parts[0])
	var fields map[string]json.RawMessage
	if json.Unmarshal(header, &fields) != nil || fields == nil {
		return reject(msgUndecodable)
	}
	return nil
}

// classify turns golang-jwt's error into PostgREST's wording. The parser
// reports an alg outside WithValidMethods as a bad signature, so the alg is
// looked at before the signature error is believed.
func (v *Verifier) classify(t *jwt.Token, err error) *apierr.Error {
	var own *apierr.Error
	switch {
	case errors.As(err, &own): // from keySet.keyfunc
		return own
	case errors.Is(err, jwt.ErrTokenMalformed) || t == nil:
		return reject(msgUndecodable)
	}
	alg, isString := t.Header["alg"].(string)
	if !isString || t.Method == nil || !slices.Contains(v.algs, alg) {
		return rejectAlg(t.Header["alg"])
	}
	if errors.Is(err, jwt.ErrTokenSignatureInvalid) {
		return rejectFor(msgCrypto, errors.New("bad signature: the token was not signed with the configured key (jwt-secret, jwt-jwks-url)"))
	}
	return rejectFor(msgCrypto, err)
}
