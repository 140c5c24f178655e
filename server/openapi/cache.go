package openapi

import (
	"container/list"
	"context"
	"runtime"
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
// room. A document larger than the bound is kept gzip-compressed when
// that fits (a schema's document repeats itself, so it compresses many
// times over), and served by decompressing it as it is written; one that
// does not fit even so is built for each request, streamed as Write
// writes it (Doc.Write).
//
// Building for the cache does not wait on any client: it is written into
// a capture (capture.go) that holds at most the bound, compressed past
// captureRaw. Requests asking for a document being built wait for that
// build rather than start their own, so a burst after a reload builds
// each document once. Builds for the cache run at most GOMAXPROCS at
// once, and so do builds written to clients (they are CPU-bound, and each
// holds what its capture or stream holds), so that however many clients
// ask, the memory and cores documents take stay bounded; the two are
// counted apart, so that slow clients reading documents built for them
// never hold up a build for the cache.
type Cache struct {
	maxBytes int64
	// current is the snapshot in force; a request still holding an older
	// one is answered without the cache, so it cannot empty it.
	current func() *snapshot.Snapshot
	// slots are the builds for the cache that may run at once, streams
	// those written to clients.
	slots, streams chan struct{}

	mu   sync.Mutex
	snap *snapshot.Snapshot
	docs map[Options]*cached
	// layouts are those of the snapshot in force, by schema.
	layouts map[string]*layout
	// lru holds the built documents, most recently served first.
	lru   list.List
	bytes int64

	builds atomic.Uint64
}

// cached is a document built, or being built (ready not closed).
type cached struct {
	key   Options
	ready chan struct{}
	doc   Doc
	err   error
	// elem is its place in the LRU once built and kept.
	elem *list.Element
}

// NewCache returns a cache keeping up to maxBytes of documents (0 keeps
// none) of the snapshot current returns.
func NewCache(maxBytes int64, current func() *snapshot.Snapshot) *Cache {
	return &Cache{maxBytes: maxBytes, current: current, docs: map[Options]*cached{},
		layouts: map[string]*layout{},
		slots:   make(chan struct{}, runtime.GOMAXPROCS(0)), streams: make(chan struct{}, runtime.GOMAXPROCS(0))}
}

// Document returns the document Build(snap, opts) makes: whole, or
// compressed, when the cache keeps it or it was just built to be kept;
// otherwise one Doc.Write builds as it writes it. ctx bounds the wait
// for a build's turn.
func (c *Cache) Document(ctx context.Context, snap *snapshot.Snapshot, opts Options) (Doc, error) {
	key := opts
	key.Role = ""
	if opts.FollowPrivileges {
		key.Role = snap.AccessOf(opts.Role).Key()
	}
	c.mu.Lock()
	if snap != c.snap {
		if snap != c.current() {
			c.mu.Unlock()
			return c.streamed(snap, opts, nil), nil
		}
		c.resetLocked(snap)
	}
	if c.maxBytes <= 0 {
		l := c.layoutLocked(snap, opts.Schema)
		c.mu.Unlock()
		return c.streamed(snap, opts, l), nil
	}
	if d := c.docs[key]; d != nil {
		if d.elem != nil {
			c.lru.MoveToFront(d.elem)
		}
		c.mu.Unlock()
		select {
		case <-d.ready:
		case <-ctx.Done():
			return Doc{}, ctx.Err()
		}
		if d.err == nil && !d.doc.kept() {
			// Too large to keep, even compressed: each request builds
			// its own as it writes it.
			return c.streamed(snap, opts, d.doc.layout), nil
		}
		return d.doc, d.err
	}
	d := &cached{key: key, ready: make(chan struct{})}
	c.docs[key] = d
	l := c.layoutLocked(snap, opts.Schema)
	c.mu.Unlock()

	d.doc, d.err = c.capture(snap, opts, l)
	close(d.ready)
	c.mu.Lock()
	c.keepLocked(snap, d)
	c.mu.Unlock()
	if d.err == nil && !d.doc.kept() {
		return c.streamed(snap, opts, l), nil
	}
	return d.doc, d.err
}

// capture builds the document for the cache, in its turn.
func (c *Cache) capture(snap *snapshot.Snapshot, opts Options, l *layout) (Doc, error) {
	c.slots <- struct{}{}
	defer func() { <-c.slots }()
	c.builds.Add(1)
	w := newCapture(c.maxBytes)
	err := write(w, snap, opts, l)
	if err == errCaptureFull {
		return Doc{layout: l}, nil
	}
	if err != nil {
		return Doc{}, err
	}
	doc, err := w.doc()
	doc.layout = l
	return doc, err
}

// streamed is a document built for each request as it is written.
func (c *Cache) streamed(snap *snapshot.Snapshot, opts Options, l *layout) Doc {
	if l == nil {
		l = newLayout(snap, opts.Schema)
	}
	return Doc{Size: -1, cache: c, snap: snap, opts: opts, layout: l}
}

// layoutLocked is the layout of schema in snap, the snapshot the cache
// holds, made once.
func (c *Cache) layoutLocked(snap *snapshot.Snapshot, schema string) *layout {
	l := c.layouts[schema]
	if l == nil {
		l = newLayout(snap, schema)
		c.layouts[schema] = l
	}
	return l
}

// keepLocked keeps d, just built for snap, within the bound, or forgets
// it: an error, or one of a snapshot no longer cached. A document too
// large to keep even compressed stays known as such (it holds no bytes),
// so that later requests stream it at once rather than try to keep it.
func (c *Cache) keepLocked(snap *snapshot.Snapshot, d *cached) {
	if c.snap != snap || c.docs[d.key] != d {
		return
	}
	if d.err != nil {
		delete(c.docs, d.key)
		return
	}
	if !d.doc.kept() {
		return
	}
	d.elem = c.lru.PushFront(d)
	c.bytes += d.doc.held()
	for c.bytes > c.maxBytes {
		old := c.lru.Remove(c.lru.Back()).(*cached)
		delete(c.docs, old.key)
		c.bytes -= old.doc.held()
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
	clear(c.layouts)
	c.lru.Init()
	c.bytes = 0
}

// Builds counts the documents built, kept or not.
func (c *Cache) Builds() uint64 { return c.builds.Load() }

// Bytes is the size of the documents kept, as kept (compressed or not).
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// Len is the number of documents kept or being built.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, d := range c.docs {
		if d.elem != nil || !isClosed(d.ready) {
			n++
		}
	}
	return n
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
