package openapi

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/svc-dev/svc/snapshot"
)

// inForce is the snapshot a test's cache takes to be in force.
type inForce struct {
	p atomic.Pointer[snapshot.Snapshot]
}

func (f *inForce) current() *snapshot.Snapshot { return f.p.Load() }

func newTestCache(t *testing.T, maxBytes int64) (*Cache, *inForce, *snapshot.Snapshot) {
	t.Helper()
	snap := fixture(t)
	f := &inForce{}
	f.p.Store(snap)
	return NewCache(maxBytes, f.current), f, snap
}

func cacheOpts(role string) Options {
	return Options{Schema: "api", Role: role, FollowPrivileges: true, Vendor: "svc"}
}

// served gets role's document from c and checks it is the one Build
// makes.
func served(t *testing.T, c *Cache, snap *snapshot.Snapshot, opts Options) []byte {
	t.Helper()
	got := fetch(t, c, snap, opts)
	want, err := Build(snap, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: the cache answered another document than Build", opts.Role)
	}
	return got
}

// fetch gets opts's document from c, written whole.
func fetch(t *testing.T, c *Cache, snap *snapshot.Snapshot, opts Options) []byte {
	t.Helper()
	doc, err := c.Document(context.Background(), snap, opts)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := doc.Write(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	if doc.Size >= 0 && doc.Size != int64(buf.Len()) {
		t.Fatalf("%s: the document has %d bytes, its Size says %d", opts.Role, buf.Len(), doc.Size)
	}
	return buf.Bytes()
}

// TestCacheBuildsOnce: a document is built once per snapshot and
// privilege set, whoever asks and however many ask at once; roles granted
// alike share it, others do not.
func TestCacheBuildsOnce(t *testing.T) {
	t.Parallel()
	c, _, snap := newTestCache(t, 1<<20)
	before := c.Builds()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := c.Document(context.Background(), snap, cacheOpts("anon")); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	served(t, c, snap, cacheOpts("anon"))
	if got := c.Builds() - before; got != 1 {
		t.Errorf("9 requests of anon: %d builds, want 1", got)
	}
	// user inherits member's grants and holds none of its own.
	served(t, c, snap, cacheOpts("member"))
	served(t, c, snap, cacheOpts("user"))
	if got := c.Builds() - before; got != 2 {
		t.Errorf("anon, member and user: %d builds, want 2", got)
	}
	// Ignoring privileges, every role has the same document, another
	// one than any role's.
	all := cacheOpts("anon")
	all.FollowPrivileges = false
	served(t, c, snap, all)
	all.Role = "member"
	served(t, c, snap, all)
	if got := c.Builds() - before; got != 3 {
		t.Errorf("after ignore-privileges for two roles: %d builds, want 3", got)
	}
	// Every option that changes the document has a document of its own.
	other := cacheOpts("anon")
	other.Host = "api.example:443"
	served(t, c, snap, other)
	if got := c.Builds() - before; got != 4 {
		t.Errorf("after another host: %d builds, want 4", got)
	}
	if c.Len() != 4 {
		t.Errorf("%d documents kept, want 4", c.Len())
	}
}

// TestCacheFollowsSnapshot: once another snapshot is in force, the
// documents of the one before are neither served nor kept; a request
// still holding the old snapshot gets its document without emptying the
// cache of the new one.
func TestCacheFollowsSnapshot(t *testing.T) {
	t.Parallel()
	c, f, old := newTestCache(t, 1<<20)
	served(t, c, old, cacheOpts("anon"))
	served(t, c, old, cacheOpts("member"))

	next := fixture(t)
	f.p.Store(next)
	c.Reset(next)
	if c.Len() != 0 || c.Bytes() != 0 {
		t.Fatalf("after Reset: %d documents, %d bytes kept; want none", c.Len(), c.Bytes())
	}
	before := c.Builds()
	served(t, c, next, cacheOpts("anon"))
	if c.Builds() != before+1 {
		t.Error("the new snapshot's document was not built")
	}
	served(t, c, old, cacheOpts("anon"))
	served(t, c, old, cacheOpts("anon"))
	if c.Builds() != before+3 || c.Len() != 1 {
		t.Errorf("old snapshot twice: %d builds, %d kept; want 2 more builds, the new snapshot's one kept", c.Builds()-before-1, c.Len())
	}
	served(t, c, next, cacheOpts("anon"))
	if c.Builds() != before+3 {
		t.Error("the new snapshot's document was built again")
	}

	// Without Reset, the first request of the snapshot in force empties
	// the cache.
	third := fixture(t)
	f.p.Store(third)
	kept := c.Bytes()
	served(t, c, third, cacheOpts("member"))
	if c.Len() != 1 || c.Bytes() >= kept+int64(len(served(t, c, third, cacheOpts("member")))) {
		t.Errorf("%d documents, %d bytes kept; want the third snapshot's one only", c.Len(), c.Bytes())
	}
}

// TestCacheBound: the documents kept stay within the byte bound, the least
// recently served making room; one larger than the bound is not kept, and
// a bound of 0 keeps nothing.
func TestCacheBound(t *testing.T) {
	t.Parallel()
	snap := fixture(t)
	anon, _ := Build(snap, cacheOpts("anon"))
	member, _ := Build(snap, cacheOpts("member"))
	bound := int64(len(anon) + len(member))

	c, _, snap := newTestCache(t, bound)
	served(t, c, snap, cacheOpts("anon"))
	served(t, c, snap, cacheOpts("member"))
	served(t, c, snap, cacheOpts("anon")) // anon is now the most recent
	if c.Len() != 2 || c.Bytes() != bound {
		t.Fatalf("%d documents, %d bytes; want both, %d bytes", c.Len(), c.Bytes(), bound)
	}
	// nobody holds PUBLIC's privileges alone, a document smaller than
	// member's.
	served(t, c, snap, cacheOpts("nobody"))
	if c.Bytes() > bound {
		t.Errorf("%d bytes kept past the bound of %d", c.Bytes(), bound)
	}
	before := c.Builds()
	served(t, c, snap, cacheOpts("anon"))
	if c.Builds() != before {
		t.Error("the most recently served document made room")
	}
	served(t, c, snap, cacheOpts("member"))
	if c.Builds() != before+1 {
		t.Error("the least recently served document was kept past the bound")
	}

	// Smaller than the document, but not than the document compressed:
	// kept compressed, and built once.
	c, _, snap = newTestCache(t, int64(len(anon))-1)
	served(t, c, snap, cacheOpts("anon"))
	served(t, c, snap, cacheOpts("anon"))
	if c.Builds() != 1 || c.Len() != 1 || c.Bytes() >= int64(len(anon))/2 {
		t.Errorf("bound %d: %d builds, %d kept in %d bytes; want 1, kept compressed in less than half the document",
			len(anon)-1, c.Builds(), c.Len(), c.Bytes())
	}
	// Smaller than the document compressed, or none: built for each
	// request, as it is written, and nothing kept.
	for _, size := range []int64{0, 64} {
		c, _, snap := newTestCache(t, size)
		served(t, c, snap, cacheOpts("anon"))
		served(t, c, snap, cacheOpts("anon"))
		if c.Len() != 0 || c.Bytes() != 0 {
			t.Errorf("bound %d: %d kept in %d bytes; want none", size, c.Len(), c.Bytes())
		}
		doc, err := c.Document(context.Background(), snap, cacheOpts("anon"))
		if err != nil || doc.Size != -1 || doc.Body != nil {
			t.Errorf("bound %d: a document of size %d (err %v); want one built as it is written", size, doc.Size, err)
		}
		before := c.Builds()
		served(t, c, snap, cacheOpts("anon"))
		if c.Builds() != before+1 {
			t.Errorf("bound %d: serving the document again built it %d times, want once", size, c.Builds()-before)
		}
	}
}

// TestCacheLargeDocuments: a document past what a capture holds
// uncompressed is kept whole when it fits the bound (compressed while it
// was built, then decompressed once), else compressed; either way it is
// served as Build makes it, with its size known, and built once.
func TestCacheLargeDocuments(t *testing.T) {
	t.Parallel()
	snap := largeSnapshot(t)
	f := &inForce{}
	f.p.Store(snap)
	for _, format := range Formats {
		opts := Options{Schema: "big", Role: "anon", FollowPrivileges: true, Vendor: "svc", Format: format}
		whole, err := Build(snap, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(whole) <= captureRaw {
			t.Fatalf("%s: a document of %d bytes tests nothing past captureRaw", format, len(whole))
		}
		for _, c := range []struct {
			bound      int64
			compressed bool
		}{{int64(len(whole)), false}, {int64(len(whole)) - 1, true}} {
			cache := NewCache(c.bound, f.current)
			served(t, cache, snap, opts)
			served(t, cache, snap, opts)
			doc, err := cache.Document(context.Background(), snap, opts)
			if err != nil {
				t.Fatal(err)
			}
			if cache.Builds() != 1 || (doc.Body == nil) != c.compressed || doc.Size != int64(len(whole)) {
				t.Errorf("%s, bound %d: %d builds, whole %v, size %d; want 1 build, whole %v, size %d",
					format, c.bound, cache.Builds(), doc.Body != nil, doc.Size, !c.compressed, len(whole))
			}
		}
	}
}
