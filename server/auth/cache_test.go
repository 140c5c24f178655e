package auth

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// clock is a movable test clock.
type clock struct{ offset atomic.Int64 }

func (c *clock) now() time.Time      { return testNow.Add(time.Duration(c.offset.Load())) }
func (c *clock) set(d time.Duration) { c.offset.Store(int64(d)) }
func cachedVerifier(t *testing.T, entries int) (*Verifier, *clock) {
	t.Helper()
	c := &clock{}
	return newVerifier(t, Options{Secret: hsSecret, CacheMaxEntries: entries, CacheMaxBytes: 16 << 20, Now: c.now}), c
}

// forget takes every key away: from then on, only a cache hit can accept a
// token, so acceptance proves that no signature was checked.
func forget(v *Verifier) keySet {
	keys := v.keys
	v.keys = keySet{}
	return keys
}

func TestCacheHitSkipsVerification(t *testing.T) {
	t.Parallel()
	v, _ := cachedVerifier(t, 10)
	token := sign(t, hsSigner, nil, map[string]any{"role": "r", "exp": testNow.Unix() + 60})
	first, err := v.Verify(token)
	if err != nil {
		t.Fatal(err)
	}
	forget(v)
	again, err := v.Verify(token)
	if err != nil {
		t.Fatalf("cached token refused: %v", err)
	}
	if again.Role != first.Role || !again.Expires.Equal(first.Expires) || &again.Claims[0] != &first.Claims[0] {
		t.Errorf("hit returned %+v, want the cached %+v (same claims bytes, no new parse)", again, first)
	}
	other := sign(t, hsSigner, nil, map[string]any{"role": "other"})
	_, err = v.Verify(other)
	wantRejection(t, err, msgNoKey, nil) // not cached: checked, and no key is left
}

func TestCacheExpiresWithToken(t *testing.T) {
	t.Parallel()
	v, clk := cachedVerifier(t, 10)
	token := sign(t, hsSigner, nil, map[string]any{"exp": testNow.Unix() + 60})
	if _, err := v.Verify(token); err != nil {
		t.Fatal(err)
	}
	keys := forget(v)
	clk.set(90 * time.Second) // exp + skew: Verify would still accept, so may the cache
	if _, err := v.Verify(token); err != nil {
		t.Fatalf("at exp+skew: %v", err)
	}
	clk.set(91 * time.Second)
	_, err := v.Verify(token)
	wantRejection(t, err, msgNoKey, nil) // the entry is gone: checked again, no keys
	v.keys = keys
	_, err = v.Verify(token)
	wantRejection(t, err, msgExpired, nil)
	if n := v.cache.entries.Len(); n != 0 {
		t.Errorf("%d entries left; an expired one should be dropped and a refusal not added", n)
	}
}

func TestCacheLifetimeCap(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		claims map[string]any
	}{
		{"no exp", map[string]any{"role": "r"}},
		{"exp in a day", map[string]any{"exp": testNow.Unix() + 86400}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v, clk := cachedVerifier(t, 10)
			token := sign(t, hsSigner, nil, c.claims)
			if _, err := v.Verify(token); err != nil {
				t.Fatal(err)
			}
			forget(v)
			clk.set(maxCacheLife)
			if _, err := v.Verify(token); err != nil {
				t.Fatalf("within %v: %v", maxCacheLife, err)
			}
			clk.set(maxCacheLife + time.Second)
			_, err := v.Verify(token)
			wantRejection(t, err, msgNoKey, nil)
		})
	}
}

func TestCacheEviction(t *testing.T) {
	t.Parallel()
	v, _ := cachedVerifier(t, 2)
	tokens := make([]string, 3)
	for i := range tokens {
		tokens[i] = sign(t, hsSigner, nil, map[string]any{"n": i})
		if _, err := v.Verify(tokens[i]); err != nil {
			t.Fatal(err)
		}
	}
	if n := v.cache.entries.Len(); n != 2 {
		t.Fatalf("%d entries, want the bound 2", n)
	}
	forget(v)
	for i, token := range tokens[1:] {
		if _, err := v.Verify(token); err != nil {
			t.Errorf("token %d evicted: %v", i+1, err)
		}
	}
	_, err := v.Verify(tokens[0]) // the least recently used
	wantRejection(t, err, msgNoKey, nil)
}

func TestCacheKeepsRefusalsOut(t *testing.T) {
	t.Parallel()
	v, _ := cachedVerifier(t, 10)
	for _, token := range []string{
		sign(t, hsSigner, nil, map[string]any{"exp": testNow.Unix() - 3600}),
		sign(t, signers()["HS256"], nil, map[string]any{}),
		"a.b.c",
	} {
		if _, err := v.Verify(token); err == nil {
			t.Fatalf("accepted %s", token)
		}
	}
	if n := v.cache.entries.Len(); n != 0 {
		t.Errorf("%d refusals cached", n)
	}
}

func TestCacheDisabled(t *testing.T) {
	t.Parallel()
	v, _ := cachedVerifier(t, 0)
	if v.cache != nil {
		t.Fatal("jwt-cache-max-entries 0 made a cache")
	}
	if v := newVerifier(t, Options{Secret: hsSecret, CacheMaxEntries: 10}); v.cache != nil {
		t.Fatal("jwt-cache-max-bytes 0 made a cache")
	}
	token := sign(t, hsSigner, nil, map[string]any{})
	if _, err := v.Verify(token); err != nil {
		t.Fatal(err)
	}
	forget(v)
	_, err := v.Verify(token)
	wantRejection(t, err, msgNoKey, nil)
}

// TestConcurrentVerify is for -race: one verifier, shared cache, many callers.
func TestConcurrentVerify(t *testing.T) {
	t.Parallel()
	v, _ := cachedVerifier(t, 8)
	tokens := make([]string, 16)
	for i := range tokens {
		tokens[i] = sign(t, hsSigner, nil, map[string]any{"role": "r", "n": i})
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				if id, err := v.Verify(tokens[(g+i)%len(tokens)]); err != nil || id.Role != "r" {
					t.Errorf("Verify: %+v %v", id, err)
					return
				}
			}
		})
	}
	wg.Wait()
}
