package server

import (
	"strconv"
	"testing"

	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// numbered is a shape that binds to itself, told apart by its number.
type numbered struct{ n int }

func (s *numbered) kept() shape { return s }

func (s *numbered) bind(*request.Template) (bound, bool) {
	return bound{main: query.Statement{SQL: strconv.Itoa(s.n)}}, true
}

func (s *numbered) run(*Server, *exchange, bound) error { return nil }

// found returns the number of the shape c binds key to, -1 for none.
func found(c *shapeCache, snap *snapshot.Snapshot, key string) int {
	_, b, ok := c.lookup(snap, &request.Template{Key: []byte(key)})
	if !ok {
		return -1
	}
	n, _ := strconv.Atoi(b.main.SQL)
	return n
}

// Every request may bring a new shape; the cache must stay within its
// bound however many arrive, keep the newest, and start over for a new
// snapshot.
func TestShapeCacheKeepsItsBound(t *testing.T) {
	var c shapeCache
	snap := &snapshot.Snapshot{}
	for i := range 3 * shapeCacheSize {
		key := "shape " + strconv.Itoa(i)
		c.keep(snap, []byte(key), &numbered{i})
		if c.len() > shapeCacheSize {
			t.Fatalf("after %d shapes the cache holds %d, more than %d", i+1, c.len(), shapeCacheSize)
		}
		if got := found(&c, snap, key); got != i {
			t.Fatalf("shape %d not kept right after keep: %d", i, got)
		}
	}
	if c.len() != shapeCacheSize {
		t.Fatalf("the full cache holds %d shapes, want %d", c.len(), shapeCacheSize)
	}
	kept := 0
	for i := range 3 * shapeCacheSize {
		if found(&c, snap, "shape "+strconv.Itoa(i)) >= 0 {
			kept++
		}
	}
	if kept != shapeCacheSize {
		t.Fatalf("%d shapes found, want %d", kept, shapeCacheSize)
	}

	next := &snapshot.Snapshot{}
	if found(&c, next, "shape 0") >= 0 || found(&c, next, "shape "+strconv.Itoa(3*shapeCacheSize-1)) >= 0 {
		t.Fatal("a shape planned against the old snapshot is served for the new one")
	}
	c.keep(next, []byte("new"), &numbered{1})
	if c.len() != 1 {
		t.Fatalf("after the first keep for a new snapshot the cache holds %d shapes, want 1", c.len())
	}
}
