package openapi

import (
	"container/list"
	"sync"
	"sync/atomic"

	"github.com/svc-dev/svc/snapshot"
)

// Cache keeps built documents, so that GET / costs a lookup rather than a
// walk over the whole schema and its encoding: building grows with the
// schema, and the document changes only with the snapshot, the options and
// what the role may do. A document is kept per snapshot, per Options, with
// the role replaced by its privileges (snapshot.Access.Key), so roles
// granted alike share one; under ignore-privileges every role shares it.
//
// The documents kept all describe one snapshot: one of another snapshot,
// the one in force now, empties the cache first (Reset does it at the
// swap). Past the byte bound the least recently served documents make
// room; a document larger than the bound is built for each request, as
// without a cache.
//
// Requests asking for a document being built wait for that build rather
// than start their own, so a burst after a reload builds each document
// once.
type Cache struct {
	maxBytes int64
	// current is the snapshot in force; a request still holding an older
	// one is answered without the cache, so it cannot empty it.
	current func() *snapshot.Snapshot

	mu   sync.Mutex
	snap *snapshot.Snapshot
	docs map[Options]*cached
	// lru holds the built documents, most recently served first.
	lru   list.List
	bytes int64

	builds atomic.Uint64
}

// cached is a document built, or being built (ready not closed).
type cached struct {
	key   Options
	ready chan struct{}
	body  []byte
	err   error
	// elem is its place in the LRU once built and kept.
	elem *list.Element
}

// NewCache returns a cache keeping up to maxBytes of documents (0 keeps
// none) of the snapshot current returns.
func NewCache(maxBytes int64, current func() *snapshot.Snapshot) *Cache {
	return &Cache{maxBytes: maxBytes, current: current, docs: map[Options]*cached{}}
}

// Document returns what Build(snap, opts) returns, built at most once
// while it stays in the cache.
func (c *Cache) Document(snap *snapshot.Snapshot, opts Options) ([]byte, error) {
	key := opts
	key.Role = ""
	if opts.FollowPrivileges {
		key.Role = snap.AccessOf(opts.Role).Key()
	}
	c.mu.Lock()
	if snap != c.snap {
		if c.maxBytes <= 0 || snap != c.current() {
			c.mu.Unlock()
			return c.build(snap, opts)
		}
		c.resetLocked(snap)
	}
	if d := c.docs[key]; d != nil {
		if d.elem != nil {
			c.lru.MoveToFront(d.elem)
		}
		c.mu.Unlock()
		<-d.ready
		return d.body, d.err
	}
	d := &cached{key: key, ready: make(chan struct{})}
	c.docs[key] = d
	c.mu.Unlock()

	d.body, d.err = c.build(snap, opts)
	close(d.ready)
	c.mu.Lock()
	c.keepLocked(snap, d)
	c.mu.Unlock()
	return d.body, d.err
}

func (c *Cache) build(snap *snapshot.Snapshot, opts Options) ([]byte, error) {
	c.builds.Add(1)
	return Build(snap, opts)
}

// keepLocked keeps d, just built for snap, within the bound, or forgets
// it: an error, a document past the bound, or one of a snapshot no longer
// cached.
func (c *Cache) keepLocked(snap *snapshot.Snapshot, d *cached) {
	if c.snap != snap || c.docs[d.key] != d {
		return
	}
	size := int64(len(d.body))
	if d.err != nil || size > c.maxBytes {
		delete(c.docs, d.key)
		return
	}
	d.elem = c.lru.PushFront(d)
	c.bytes += size
	for c.bytes > c.maxBytes {
		old := c.lru.Remove(c.lru.Back()).(*cached)
		delete(c.docs, old.key)
		c.bytes -= int64(len(old.body))
	}
}

// Reset forgets every document and caches those of snap from now on: pass
// it the snapshot put in force, so that the documents of the one it
// replaced are freed at once rather than at the next request.
func (c *Cache) Reset(snap *snapshot.Snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.resetLocked(snap)
}

func (c *Cache) resetLocked(snap *snapshot.Snapshot) {
	c.snap = snap
	clear(c.docs)
	c.lru.Init()
	c.bytes = 0
}

// Builds counts the documents built, cached or not.
func (c *Cache) Builds() uint64 { return c.builds.Load() }

// Bytes is the size of the documents kept.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// Len is the number of documents kept or being built.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.docs)
}
