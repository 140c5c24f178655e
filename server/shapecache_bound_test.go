package server

import (
	"strconv"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

// Every request may bring a new shape; the cache must stay within its
// bound however many arrive, keep the newest, and start over for a new
// snapshot.
func TestShapeCacheKeepsItsBound(t *testing.T) {
	var c shapeCache[int]
	snap := &snapshot.Snapshot{}
	for i := range 3 * shapeCacheSize {
		n := i
		key := []byte("shape " + strconv.Itoa(i))
		c.put(snap, key, &n)
		if c.len() > shapeCacheSize {
			t.Fatalf("after %d shapes the cache holds %d, more than %d", i+1, c.len(), shapeCacheSize)
		}
		if got := c.get(snap, key); got == nil || *got != i {
			t.Fatalf("shape %d not kept right after put: %v", i, got)
		}
	}
	if c.len() != shapeCacheSize {
		t.Fatalf("the full cache holds %d shapes, want %d", c.len(), shapeCacheSize)
	}
	kept := 0
	for i := range 3 * shapeCacheSize {
		if c.get(snap, []byte("shape "+strconv.Itoa(i))) != nil {
			kept++
		}
	}
	if kept != shapeCacheSize {
		t.Fatalf("%d shapes found, want %d", kept, shapeCacheSize)
	}

	next := &snapshot.Snapshot{}
	if c.get(next, []byte("shape 0")) != nil || c.get(next, []byte("shape "+strconv.Itoa(3*shapeCacheSize-1))) != nil {
		t.Fatal("a shape planned against the old snapshot is served for the new one")
	}
	one := 1
	c.put(next, []byte("new"), &one)
	if c.len() != 1 {
		t.Fatalf("after the first put for a new snapshot the cache holds %d shapes, want 1", c.len())
	}
}
