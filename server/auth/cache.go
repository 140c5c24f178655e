package auth

import (
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// maxCacheLife bounds how long a verified token is trusted without a new
// check, whatever its exp says: a key dropped from the JWKS endpoint (or a
// token without exp) then stops being accepted within this long after the
// next fetch.
const maxCacheLife = 5 * time.Minute

// entryOverhead is what an entry holds besides its token and claims: the
// LRU's list element and map slot, the cached struct, the role.
const entryOverhead = 256

// largestShare is the share of the byte budget one entry may take: a
// token estimated above budget/largestShare is verified each time rather
// than kept, so that a few huge tokens cannot empty the cache of the
// ordinary ones.
const largestShare = 16

// cache remembers successful verifications by the token's full text, so a
// different signature is a different entry. Refusals are not cached: they
// are cheap to repeat, and caching them would let garbage evict good
// entries. It is bounded twice: by a count of entries, and by an estimate
// of the bytes they hold (a token's length and its claims', plus
// entryOverhead), since a token is as large as its header may be (up to
// server-max-header-bytes) and a count alone lets distinct large tokens
// hold that many times as much. Safe for concurrent use.
type cache struct {
	mu       sync.Mutex
	entries  *simplelru.LRU[string, cached]
	bytes    int // the estimate of what entries hold; never above maxBytes
	maxBytes int
}

type cached struct {
	id    Identity
	until time.Time // the entry is good while now is not after this
	cost  int       // the entry's share of bytes
}

// newCache makes a cache of at most size entries holding at most maxBytes
// estimated; both must be positive.
func newCache(size, maxBytes int) (*cache, error) {
	c := &cache{maxBytes: maxBytes}
	entries, err := simplelru.NewLRU(size, func(_ string, e cached) { c.bytes -= e.cost })
	if err != nil {
		return nil, err
	}
	c.entries = entries
	return c, nil
}

// get returns the identity of a token verified before and still good at
// now; an entry past its time is dropped.
func (c *cache) get(token string, now time.Time) (Identity, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
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
// maxCacheLife, whichever comes first. A token too large for its share of
// the budget is not kept; the least recently used entries make room for
// one that is.
func (c *cache) put(token string, id Identity, now time.Time) {
	cost := len(token) + len(id.Claims) + len(id.Role) + entryOverhead
	if cost > c.maxBytes/largestShare {
		return
	}
	until := now.Add(maxCacheLife)
	if !id.Expires.IsZero() {
		if exp := id.Expires.Add(skew); exp.Before(until) {
			until = exp
		}
	}
	// The key must hold only the token: a string cut from a larger one
	// (the request's header block) would keep all of that alive.
	token = strings.Clone(token)
	c.mu.Lock()
	defer c.mu.Unlock()
	// Replacing an entry in place would not go through the eviction
	// callback, and its cost would be counted twice.
	c.entries.Remove(token)
	for c.bytes+cost > c.maxBytes {
		if _, _, ok := c.entries.RemoveOldest(); !ok {
			break
		}
	}
	c.entries.Add(token, cached{id: id, until: until, cost: cost})
	c.bytes += cost
}
