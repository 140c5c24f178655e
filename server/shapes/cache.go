package shapes

import (
	"net/http"
	"sync"
	"unsafe"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// Reads repeat a few shapes with ever-changing values: a page of books by
// one author, then by another; a function called with one argument, then
// another. For each shape (request.Template) the server keeps what
// parsing, planning and building the statements made of the first such
// read, and a later read of the shape binds its own values into the kept
// statements, skipping all three. Inserts repeat a few shapes too
// (request.WriteKey): a later insert of the shape reads the request kept
// for its head (request.WriteHead), takes a copy of the kept plan with
// its own body and binds the body into the kept statement, skipping all
// three as well; its body is read and checked as any. Entries belong to
// the snapshot they were planned against: the first request after a swap
// empties the cache.

// Shape is what the cache keeps of a request: its statements, with the
// request's values taken out, and what answering it takes.
type Shape interface {
	// Kept returns the shape fit to keep for other requests of it, or
	// nil when its statements serve their own request only.
	Kept() Shape
	// Bytes estimates the memory a kept shape holds (size.go).
	Bytes() int
}

// Part is one of the cache's parts, each bounded on its own.
type Part int

// The parts: GET and HEAD of relations, GET and HEAD calls, inserts.
const (
	Reads Part = iota
	Calls
	Inserts
	parts
)

// Cache holds the shapes of the current snapshot, in three parts: each
// at most a configured number (server-shape-cache-max-entries) and a
// configured estimate of their memory (server-shape-cache-max-bytes);
// past either, the least recently used shapes make room. Shapes repeat,
// so a few hundred cover a busy API, and a client that sends ever new
// shapes only churns the cache; the memory bound keeps a stream of large
// ones, each as large as the request limits allow, from filling every
// entry. The cache builds the keys it finds shapes by (Template,
// InsertKey) and estimates their memory itself.
type Cache struct {
	parts [parts]lru
}

// New returns a cache keeping, in each part, up to entries shapes of up
// to budget bytes in all.
func New(entries, budget int) *Cache {
	c := &Cache{}
	for i := range c.parts {
		c.parts[i] = lru{size: entries, budget: budget}
	}
	return c
}

// lru is one part of the cache.
type lru struct {
	mu   sync.Mutex
	size int // entries; 0 keeps nothing
	// budget bounds used, the estimated memory of the shapes kept (their
	// keys included); 0 keeps nothing.
	budget, used int
	snap         *snapshot.Snapshot
	lru          *simplelru.LRU[string, keptShape]
}

// keptShape is a shape in the cache with its estimated memory.
type keptShape struct {
	Shape
	size int
}

// maxShare is the share of the budget past which a shape is not kept:
// one large shape does not take the room of many ordinary ones.
const maxShare = 16

// Find returns the shape kept in part p for key, planned against snap;
// nil when there is none.
func (c *Cache) Find(snap *snapshot.Snapshot, p Part, key []byte) Shape {
	l := &c.parts[p]
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.snap != snap || l.lru == nil || len(key) == 0 {
		return nil
	}
	// The LRU only reads the key to find it, so a string sharing the
	// key's bytes spares copying them for every request.
	kept, _ := l.lru.Get(unsafe.String(&key[0], len(key)))
	return kept.Shape
}

// Keep keeps sh in part p, made for a request of key planned against
// snap, for the later requests of its shape, unless its statements serve
// that request only. A request still in flight on an older snapshot may
// keep after a swap; that empties the part once more and costs nothing
// else, as Find checks the snapshot.
func (c *Cache) Keep(snap *snapshot.Snapshot, p Part, key []byte, sh Shape) {
	l := &c.parts[p]
	if l.size <= 0 || l.budget <= 0 {
		return
	}
	kept := sh.Kept()
	if kept == nil {
		return
	}
	size := Overhead + query.Allocated(len(key)) + kept.Bytes()
	if size > l.budget/maxShare {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.snap != snap || l.lru == nil {
		l.snap, l.used = snap, 0
		l.lru, _ = simplelru.NewLRU(l.size, l.evicted)
	}
	k := string(key)
	if old, ok := l.lru.Peek(k); ok {
		// Two requests of a new shape both planned it; the later stays.
		l.used -= old.size
	}
	l.lru.Add(k, keptShape{kept, size})
	l.used += size
	for l.used > l.budget {
		l.lru.RemoveOldest()
	}
}

// evicted accounts for a shape the LRU let go, under l.mu.
func (l *lru) evicted(_ string, sh keptShape) { l.used -= sh.size }

// Len is the number of shapes part p keeps.
func (c *Cache) Len(p Part) int {
	l := &c.parts[p]
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lru == nil {
		return 0
	}
	return l.lru.Len()
}

// BytesUsed is the estimated memory of the shapes part p keeps.
func (c *Cache) BytesUsed(p Part) int {
	l := &c.parts[p]
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.used
}

// Template reads the template of r, a request of kind for target: its
// shape's key and its values; nil for a request that is not a GET or
// HEAD, or has no template. Give it back with Done.
func Template(r *http.Request, kind request.Kind, target string) *request.Template {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return nil
	}
	t := templates.Get().(*request.Template)
	if !t.Read(r, kind, target) {
		templates.Put(t)
		return nil
	}
	return t
}

// Done gives back a template Template returned.
func Done(t *request.Template) { templates.Put(t) }

// templates recycles the templates reads are matched by.
var templates = sync.Pool{New: func() any { return new(request.Template) }}

// InsertKey is the key of an insert's shape (request.WriteKey), made in
// two steps: its head's (request.WriteHead) before the body is read, by
// which the request's parse is kept, and then its body's, by which its
// plan and statement are. Give it back with Done.
type InsertKey struct {
	b    []byte
	head int // the head's length in b
}

// HeadKey returns the key of the head of an insert of target, r's, to be
// completed with its body's by AddBody.
func HeadKey(r *http.Request, target string) *InsertKey {
	k := insertKeys.Get().(*InsertKey)
	k.b = request.WriteHead(k.b[:0], r, target)
	k.head = len(k.b)
	return k
}

// AddBody completes the key with the insert's body p.
func (k *InsertKey) AddBody(p *request.Payload) { k.b = request.WriteBodyKey(k.b[:k.head], p) }

// Head is the key of the insert's head as Find and Keep take it.
func (k *InsertKey) Head() []byte { return k.b[:k.head] }

// Bytes is the key as Find and Keep take it, once AddBody has completed it.
func (k *InsertKey) Bytes() []byte { return k.b }

// Done gives the key back.
func (k *InsertKey) Done() { insertKeys.Put(k) }

// insertKeys recycles the buffers insert keys are built in.
var insertKeys = sync.Pool{New: func() any { return new(InsertKey) }}
