package shapes

import (
	"slices"
	"strconv"
	"testing"

	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/snapshot"
)

// numbered is a shape told apart by its number, of a given estimated
// size.
type numbered struct{ n, size int }

func (s *numbered) Kept() Shape { return s }

func (s *numbered) Bytes() int { return s.size }

// found returns the number of the shape c's reads keep for key, -1 for
// none.
func found(c *Cache, snap *snapshot.Snapshot, key string) int {
	sh, ok := c.Find(snap, Reads, []byte(key)).(*numbered)
	if !ok {
		return -1
	}
	return sh.n
}

// Every request may bring a new shape; the cache must stay within its
// bound however many arrive, keep the newest, and start over for a new
// snapshot.
func TestShapeCacheKeepsItsBound(t *testing.T) {
	const size = 64
	c := New(size, 1<<30)
	snap := &snapshot.Snapshot{}
	for i := range 3 * size {
		key := "shape " + strconv.Itoa(i)
		c.Keep(snap, Reads, []byte(key), &numbered{n: i})
		if c.Len(Reads) > size {
			t.Fatalf("after %d shapes the cache holds %d, more than %d", i+1, c.Len(Reads), size)
		}
		if got := found(c, snap, key); got != i {
			t.Fatalf("shape %d not kept right after keep: %d", i, got)
		}
	}
	if c.Len(Reads) != size {
		t.Fatalf("the full cache holds %d shapes, want %d", c.Len(Reads), size)
	}
	for i := range 3 * size {
		want := -1
		if i >= 2*size {
			want = i // the newest
		}
		if got := found(c, snap, "shape "+strconv.Itoa(i)); got != want {
			t.Fatalf("shape %d: found %d, want %d", i, got, want)
		}
	}

	next := &snapshot.Snapshot{}
	if found(c, next, "shape "+strconv.Itoa(3*size-1)) >= 0 {
		t.Fatal("a shape planned against the old snapshot is served for the new one")
	}
	c.Keep(next, Reads, []byte("new"), &numbered{n: 1})
	if c.Len(Reads) != 1 {
		t.Fatalf("after the first keep for a new snapshot the cache holds %d shapes, want 1", c.Len(Reads))
	}
}

// A full cache evicts the shape least recently used, not one a request
// has just used: a busy API's few hot shapes survive a stream of one-off
// ones.
func TestShapeCacheEvictsLeastRecentlyUsed(t *testing.T) {
	for _, tc := range []struct {
		name    string
		used    []int // looked up, in this order, once the cache is full
		evicted []int // when shape 4 then 5 are kept next
	}{
		{"none used", nil, []int{0, 1}},
		{"oldest used", []int{0}, []int{1, 2}},
		{"all used, newest first", []int{3, 2, 1, 0}, []int{3, 2}},
		{"one used twice", []int{1, 0, 1}, []int{2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(4, 1<<30)
			snap := &snapshot.Snapshot{}
			for i := range 4 {
				c.Keep(snap, Reads, []byte("shape "+strconv.Itoa(i)), &numbered{n: i})
			}
			for _, i := range tc.used {
				if found(c, snap, "shape "+strconv.Itoa(i)) != i {
					t.Fatalf("shape %d missing from a cache that is not full yet", i)
				}
			}
			c.Keep(snap, Reads, []byte("shape 4"), &numbered{n: 4})
			c.Keep(snap, Reads, []byte("shape 5"), &numbered{n: 5})
			var evicted []int
			for i := range 6 {
				if found(c, snap, "shape "+strconv.Itoa(i)) < 0 {
					evicted = append(evicted, i)
				}
			}
			if !slices.Equal(evicted, sortedCopy(tc.evicted)) {
				t.Errorf("evicted %v, want %v", evicted, sortedCopy(tc.evicted))
			}
		})
	}
}

func sortedCopy(s []int) []int {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// server-shape-cache-max-entries = 0 or server-shape-cache-max-bytes = 0
// keeps no shape: every request is parsed and planned.
func TestShapeCacheOfSizeZeroKeepsNothing(t *testing.T) {
	for _, c := range []*Cache{New(0, 1<<30), New(1024, 0)} {
		snap := &snapshot.Snapshot{}
		c.Keep(snap, Reads, []byte("shape"), &numbered{n: 1})
		if c.Len(Reads) != 0 || found(c, snap, "shape") >= 0 {
			t.Fatalf("a cache of %d shapes and %d bytes kept a shape (len %d)", c.parts[Reads].size, c.parts[Reads].budget, c.Len(Reads))
		}
	}
}

// The cache is bounded by the estimated memory of its shapes too: however
// many large shapes arrive, those kept stay within the budget, the newest
// kept; a shape larger than a sixteenth of the budget is not kept at all.
func TestShapeCacheKeepsItsByteBound(t *testing.T) {
	const budget, size = 1 << 20, 10 << 10
	c := New(1024, budget)
	snap := &snapshot.Snapshot{}
	for i := range 1000 {
		key := "shape " + strconv.Itoa(i)
		c.Keep(snap, Reads, []byte(key), &numbered{i, size})
		if c.BytesUsed(Reads) > budget {
			t.Fatalf("after %d shapes the cache holds %d bytes, more than %d", i+1, c.BytesUsed(Reads), budget)
		}
		if got := found(c, snap, key); got != i {
			t.Fatalf("shape %d not kept right after keep: %d", i, got)
		}
	}
	kept := c.Len(Reads)
	if each := size + Overhead + query.Allocated(len("shape 999")); kept < budget/each-1 || kept > budget/each+1 {
		t.Errorf("%d shapes of %d bytes kept in %d bytes", kept, size, budget)
	}
	if found(c, snap, "shape 999") != 999 || found(c, snap, "shape "+strconv.Itoa(999-kept)) >= 0 {
		t.Error("the cache kept other shapes than the newest")
	}

	c.Keep(snap, Reads, []byte("large"), &numbered{-2, budget / 16})
	if found(c, snap, "large") >= 0 {
		t.Error("a shape of a sixteenth of the budget was kept")
	}
	// Kept again under its key, a shape is counted once.
	used := c.BytesUsed(Reads)
	c.Keep(snap, Reads, []byte("shape 999"), &numbered{999, size})
	if c.BytesUsed(Reads) != used {
		t.Errorf("a shape kept twice: %d bytes held, was %d", c.BytesUsed(Reads), used)
	}
	// A new snapshot starts over.
	c.Keep(&snapshot.Snapshot{}, Reads, []byte("new"), &numbered{1, size})
	if c.Len(Reads) != 1 || c.BytesUsed(Reads) != size+Overhead+query.Allocated(len("new")) {
		t.Errorf("after a new snapshot: %d shapes, %d bytes", c.Len(Reads), c.BytesUsed(Reads))
	}
}
