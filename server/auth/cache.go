package auth

import (
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// maxCacheLife bounds how long a verified token is trusted without a new
// check, whatever its exp says: a key dropped from the JWKS endpoint (or a
// token without exp) then stops being accepted within this long after the
// next fetch.
const maxCacheLife = 5 * time.Minute

// cache remembers successful verifications by the token's full text, so a
// different signature is a different entry. Refusals are not cached: they
// are cheap to repeat, and caching them would let garbage evict good
// entries. Safe for concurrent use (the LRU locks).
type cache struct {
	entries *lru.Cache[string, cached]
}

type cached struct {
	id    Identity
	until time.Time // the entry is good while now is not after this
}

// newCache makes a cache of at most size entries; size must be positive.
func newCache(size int) (*cache, error) {
	entries, err := lru.New[string, cached](size)
	if err != nil {
		return nil, err
	}
	return &cache{entries: entries}, nil
}

// get returns the identity of a token verified before and still good at
// now; an entry past its time is dropped.
func (c *cache) get(token string, now time.Time) (Identity, bool) {
	e, ok := c.entries.Get(token)
	if !ok {
		return Identity{}, false
	}
	if now.After(e.until) {
		c.entries.Remove(token)
		return Identity{}, false
	}
	return e.id, true
}

// put remembers id until the token expires (exp plus the skew Verify
// allows, so the cache never accepts what Verify would refuse) or for
// maxCacheLife, whichever comes first.
func (c *cache) put(token string, id Identity, now time.Time) {
	until := now.Add(maxCacheLife)
	if !id.Expires.IsZero() {
		if exp := id.Expires.Add(skew); exp.Before(until) {
			until = exp
		}
	}
	c.entries.Add(token, cached{id: id, until: until})
}
