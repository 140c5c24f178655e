package auth

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// paddedToken is a distinct valid token about size bytes long: its claims
// carry padding, as a client may pad a token up to the header limit.
func paddedToken(t testing.TB, i, size int) string {
	pad := strings.Repeat("p", size*3/4)
	return sign(t, hsSigner, nil, map[string]any{"role": "r", "n": i, "pad": pad})
}

// checkBytes fails unless the cache's count of bytes is what its entries
// cost, within the budget.
func checkBytes(t *testing.T, c *cache) {
	t.Helper()
	sum := 0
	for _, e := range c.entries.Values() {
		sum += e.cost
	}
	if c.bytes != sum || c.bytes > c.maxBytes {
		t.Errorf("cache counts %d bytes, its %d entries cost %d, budget %d", c.bytes, c.entries.Len(), sum, c.maxBytes)
	}
}

// TestCacheBoundedByBytes: distinct large tokens evict the least recently
// used once their estimate reaches jwt-cache-max-bytes, whatever room
// jwt-cache-max-entries leaves; the most recent ones stay hits.
func TestCacheBoundedByBytes(t *testing.T) {
	t.Parallel()
	c := &clock{}
	v := newVerifier(t, Options{Secret: hsSecret, CacheMaxEntries: 1000, CacheMaxBytes: 1 << 20, Now: c.now})
	tokens := make([]string, 100)
	for i := range tokens {
		tokens[i] = paddedToken(t, i, 30<<10)
		if _, err := v.Verify(tokens[i]); err != nil {
			t.Fatal(err)
		}
		checkBytes(t, v.cache)
	}
	if n := v.cache.entries.Len(); n >= len(tokens) || n < 10 {
		t.Fatalf("%d entries of about 53 KB each kept in a budget of 1 MiB", n)
	}
	forget(v)
	if _, err := v.Verify(tokens[len(tokens)-1]); err != nil {
		t.Errorf("the last token verified was evicted: %v", err)
	}
	_, err := v.Verify(tokens[0])
	wantRejection(t, err, msgNoKey, nil)
	// Seen twice, a token is counted once.
	v2 := newVerifier(t, Options{Secret: hsSecret, CacheMaxEntries: 10, CacheMaxBytes: 1 << 20, Now: c.now})
	v2.cache.put(tokens[1], Identity{Claims: []byte("{}")}, testNow)
	v2.cache.put(tokens[1], Identity{Claims: []byte("{}")}, testNow)
	checkBytes(t, v2.cache)
	if n := v2.cache.entries.Len(); n != 1 {
		t.Errorf("%d entries for one token", n)
	}
}

// TestCacheSkipsHugeTokens: a token estimated at more than a sixteenth of
// the budget is verified, and not kept.
func TestCacheSkipsHugeTokens(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, Options{Secret: hsSecret, CacheMaxEntries: 1000, CacheMaxBytes: 1 << 20})
	small, huge := paddedToken(t, 1, 30<<10), paddedToken(t, 2, 40<<10)
	for _, token := range []string{small, huge} {
		if _, err := v.Verify(token); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := v.cache.entries.Peek(huge); ok {
		t.Error("a token of 40 KB (about 70 KB with its claims) was kept; the largest kept is 64 KiB")
	}
	if _, ok := v.cache.entries.Peek(small); !ok {
		t.Error("a token of 30 KB (about 53 KB with its claims) was not kept")
	}
}

// TestLargeTokensHeapBounded is the case: 1,000 distinct valid
// tokens of half a megabyte each, with the default bounds (1,000 entries,
// 16 MiB). The heap they leave behind, once collected, must stay within
// the byte budget, where a count alone kept all of them (about 900 MB).
// Not parallel: the heap is measured while no other test runs.
func TestLargeTokensHeapBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("signs and verifies 500 MB of tokens")
	}
	const budget = 16 << 20
	v := newVerifier(t, Options{Secret: hsSecret, CacheMaxEntries: 1000, CacheMaxBytes: budget})
	before := heapInUse()
	for i := range 1000 {
		if _, err := v.Verify(paddedToken(t, i, 512<<10)); err != nil {
			t.Fatal(strconv.Itoa(i), err)
		}
	}
	grown := heapInUse() - before
	t.Logf("%d tokens kept, %d bytes counted; the heap grew by %d KiB", v.cache.entries.Len(), v.cache.bytes, grown>>10)
	checkBytes(t, v.cache)
	// The estimate may miss allocator rounding: a quarter more is slack.
	if grown > budget*5/4 {
		t.Errorf("the heap grew by %d MiB verifying 1,000 tokens of 512 KB; jwt-cache-max-bytes is %d MiB", grown>>20, budget>>20)
	}
	runtime.KeepAlive(v)
}

// heapInUse is the live heap after a collection.
func heapInUse() int {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int(m.HeapAlloc)
}
