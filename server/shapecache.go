package server

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
// statements, skipping all three. Entries belong to the snapshot they
// were planned against: the first read after a swap empties the cache.

// shape is what the shape cache keeps of a request: its statements, with
// the request's values taken out, and for a read or a call what answering
// it takes (a readShape).
type shape interface {
	// kept returns the shape fit to keep for other requests of it, or nil
	// when its statements serve their own request only.
	kept() shape
	// bytes estimates the memory a kept shape holds (shapesize.go).
	bytes() int
}

// readShape is the shape of a read or a call, found by its template:
// the cache binds another request's values into its statements (lookup),
// and it is also the action (pipeline.go) such a request runs.
type readShape interface {
	shape
	// bind returns the kept statements with the values of the request t
	// is the template of, and false if they do not fit.
	bind(t *request.Template) (bound, bool)
}

// bound is a request's statements: bound to its values, or, in a kept
// shape, with the values taken out.
type bound struct {
	main query.Statement
	// count is the planner's estimate of the row count, when a read asks
	// for one.
	count *query.Statement
}

// shape returns b with the values taken out, and false when the
// statements serve their own request only.
func (b bound) shape() (bound, bool) {
	main, ok := b.main.Shape()
	if !ok {
		return bound{}, false
	}
	kept := bound{main: main}
	if b.count != nil {
		count, ok := b.count.Shape()
		if !ok {
			return bound{}, false
		}
		kept.count = &count
	}
	return kept, true
}

// bind returns kept statements b with the values of the request t is the
// template of, and false if they do not fit.
func (b bound) bind(t *request.Template) (bound, bool) {
	main, ok := b.main.Bind(t)
	if !ok {
		return bound{}, false
	}
	out := bound{main: main}
	if b.count != nil {
		count, ok := b.count.Bind(t)
		if !ok {
			return bound{}, false
		}
		out.count = &count
	}
	return out, true
}

// entry is what the shapes of reads and calls hold alike: their
// transaction's shape and their statements.
type entry struct {
	txShape
	stmts bound
}

func (e *entry) bind(t *request.Template) (bound, bool) { return e.stmts.bind(t) }

// keep returns e with the values taken out of its statements and its
// texts copied from the request's, and false when its statements serve
// their own request only.
func (e *entry) keep() (entry, bool) {
	stmts, ok := e.stmts.shape()
	if !ok {
		return entry{}, false
	}
	kept := entry{txShape: e.txShape, stmts: stmts}
	kept.txShape.detach()
	return kept, true
}

// shapeCache holds the shapes of the current snapshot, at most a
// configured number (server-shape-cache-max-entries) and a configured
// estimate of their memory (server-shape-cache-max-bytes); past either,
// the least recently used shapes make room. Shapes repeat, so a few
// hundred cover a busy API, and a client that sends ever new shapes only
// churns the cache; the memory bound keeps a stream of large ones, each
// as large as the request limits allow, from filling every entry.
type shapeCache struct {
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
	shape
	size int
}

// shapeMaxShare is the share of the budget past which a shape is not
// kept: one large shape does not take the room of many ordinary ones.
const shapeMaxShare = 16

// newShapeCache returns a cache keeping up to size shapes, of up to
// budget bytes in all.
func newShapeCache(size, budget int) *shapeCache {
	return &shapeCache{size: size, budget: budget}
}

// lookup returns the shape of the request t is the template of, planned
// against snap, with its statements bound to the request's values; false
// when no such shape is kept or the values do not fit it.
func (c *shapeCache) lookup(snap *snapshot.Snapshot, t *request.Template) (shape, bound, bool) {
	sh, ok := c.find(snap, t.Key).(readShape)
	if !ok {
		return nil, bound{}, false
	}
	b, ok := sh.bind(t)
	return sh, b, ok
}

// find returns the shape kept for key, planned against snap; nil when
// there is none.
func (c *shapeCache) find(snap *snapshot.Snapshot, key []byte) shape {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap != snap || c.lru == nil || len(key) == 0 {
		return nil
	}
	// The LRU only reads the key to find it, so a string sharing the
	// key's bytes spares copying them for every request.
	kept, _ := c.lru.Get(unsafe.String(&key[0], len(key)))
	return kept.shape
}

// keep keeps sh, made for a request of key planned against snap, for the
// later requests of its shape, unless its statements serve that request
// only. A request still in flight on an older snapshot may keep after a
// swap; that empties the cache once more and costs nothing else, as
// lookup checks the snapshot.
func (c *shapeCache) keep(snap *snapshot.Snapshot, key []byte, sh shape) {
	if c.size <= 0 || c.budget <= 0 {
		return
	}
	kept := sh.kept()
	if kept == nil {
		return
	}
	size := shapeOverhead + query.Allocated(len(key)) + kept.bytes()
	if size > c.budget/shapeMaxShare {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap != snap || c.lru == nil {
		c.snap, c.used = snap, 0
		c.lru, _ = simplelru.NewLRU(c.size, c.evicted)
	}
	k := string(key)
	if old, ok := c.lru.Peek(k); ok {
		// Two requests of a new shape both planned it; the later stays.
		c.used -= old.size
	}
	c.lru.Add(k, keptShape{kept, size})
	c.used += size
	for c.used > c.budget {
		c.lru.RemoveOldest()
	}
}

// evicted accounts for a shape the LRU let go, under c.mu.
func (c *shapeCache) evicted(_ string, sh keptShape) { c.used -= sh.size }

// len is the number of shapes kept.
func (c *shapeCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lru == nil {
		return 0
	}
	return c.lru.Len()
}

// bytesUsed is the estimated memory of the shapes kept.
func (c *shapeCache) bytesUsed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// readShape reads the template of a GET or HEAD of a route that keeps
// shapes, into x; nil for any other request. The caller gives the
// template back (templates).
func (x *exchange) readShape(c *shapeCache, kind request.Kind, target string) *request.Template {
	if c == nil || (x.r.Method != http.MethodGet && x.r.Method != http.MethodHead) {
		return nil
	}
	t := templates.Get().(*request.Template)
	if !t.Read(x.r, kind, target) {
		templates.Put(t)
		return nil
	}
	x.shapes, x.template = c, t
	return t
}

// cached returns the action of the kept shape of the request t is the
// template of, its statements bound to the request's values (x.stmts);
// nil when no such shape is kept or the values do not fit it.
func (x *exchange) cached(t *request.Template) action {
	sh, b, ok := x.shapes.lookup(x.snap, t)
	if !ok {
		return nil
	}
	act, ok := sh.(action)
	if ok {
		x.stmts = b
	}
	return act
}

// keepShape keeps the shape of the request, when it has one and act is a
// shape, for later requests of that shape.
func (x *exchange) keepShape(act action) {
	if x.template == nil {
		return
	}
	if sh, ok := act.(shape); ok {
		x.shapes.keep(x.snap, x.template.Key, sh)
	}
}

// templates recycles the templates reads are matched by.
var templates = sync.Pool{New: func() any { return new(request.Template) }}
