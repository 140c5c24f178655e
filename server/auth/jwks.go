package auth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
)

// Refreshing a JWKS endpoint (jwt-jwks-url). keyfunc fetches the set once
// at start, again every jwksRefreshInterval, and again when a token names a
// kid it does not hold. keyfunc's limiter allows that once per five
// minutes; an unknown kid in between is refused at once, unless the limiter
// frees up within jwksTimeout, in which case that one request waits for it.
// Each fetch replaces the whole set, so a key the endpoint drops stops
// verifying at the next fetch.
const (
	jwksRefreshInterval = 5 * time.Minute
	// jwksTimeout bounds one fetch, and so how long a request with an
	// unknown kid can wait for it.
	jwksTimeout = 10 * time.Second
)

// checkJWKSURL refuses a jwt-jwks-url that is not an absolute http(s) URL.
func checkJWKSURL(u string) error {
	parsed, err := url.Parse(u)
	if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return fmt.Errorf("jwt-jwks-url: %q is not an http or https URL", u)
	}
	return nil
}

// remoteKeys is the key set served at jwt-jwks-url.
type remoteKeys struct {
	ctx     context.Context // ends the refresh goroutine; also bounds lookups
	storage jwkset.Storage
}

// newRemoteKeys starts fetching u. A first fetch that fails is logged (by
// keyfunc, through slog) rather than fatal: the server starts, and tokens
// are refused until a fetch succeeds, as when the issuer is down later on.
func newRemoteKeys(ctx context.Context, u string, client *http.Client) (*remoteKeys, error) {
	if err := checkJWKSURL(u); err != nil {
		return nil, err
	}
	kf, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{u}, keyfunc.Override{
		Client:           client,
		HTTPTimeout:      jwksTimeout,
		RateLimitWaitMax: jwksTimeout,
		RefreshInterval:  jwksRefreshInterval,
	})
	if err != nil {
		return nil, fmt.Errorf("jwt-jwks-url: %s", oneLine(err))
	}
	return &remoteKeys{ctx: ctx, storage: kf.Storage()}, nil
}

// byKID finds the key of that kid, fetching the set again first when it is
// unknown and the limiter allows. found is true when the endpoint serves a
// JWK of that kid, even one that cannot verify signatures (then k fits no
// alg, so the token is refused rather than tried with other keys).
func (r *remoteKeys) byKID(kid string) (k key, found bool) {
	j, err := r.storage.KeyRead(r.ctx, kid)
	if err != nil {
		return key{}, false // unknown, or the limiter said not now: both mean no such key
	}
	k, _ = fromJWK(j, true)
	k.kid, k.anyKID = kid, false
	return k, true
}

// all is the current set, without fetching.
func (r *remoteKeys) all() []key {
	jwks, err := r.storage.KeyReadAll(r.ctx)
	if err != nil {
		return nil
	}
	keys := make([]key, 0, len(jwks))
	for _, j := range jwks {
		if k, ok := fromJWK(j, true); ok {
			keys = append(keys, k)
		}
	}
	return keys
}
