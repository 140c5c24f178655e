package server

import (
	"net/url"
	"sync"
	"unsafe"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/plan"
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
// the request's values taken out, and what answering it takes. The cache
// binds another request's values into them (lookup), so a route only
// says how a shape is kept and run.
type shape interface {
	// kept returns the shape fit to keep for other requests of it, or nil
	// when its statements serve their own request only.
	kept() shape
	// bind returns the kept statements with the values of the request t
	// is the template of, and false if they do not fit.
	bind(t *request.Template) (bound, bool)
	// run runs statements bound to the request x carries and answers it.
	run(s *Server, x *exchange, b bound) error
	// bytes estimates the memory a kept shape holds (shapesize.go).
	bytes() int
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
	c.mu.Lock()
	var sh shape
	if c.snap == snap && c.lru != nil && len(t.Key) > 0 {
		// The LRU only reads the key to find it, so a string sharing
		// the template's bytes spares copying them for every request.
		kept, _ := c.lru.Get(unsafe.String(&t.Key[0], len(t.Key)))
		sh = kept.shape
	}
	c.mu.Unlock()
	if sh == nil {
		return nil, bound{}, false
	}
	b, ok := sh.bind(t)
	return sh, b, ok
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
	size := shapeOverhead + allocated(len(key)) + kept.bytes()
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

// txShape is what a read's transaction takes from its shape: the
// preferences, and the schema of the relation or function read.
type txShape struct {
	prefer     request.Preferences
	schema     string // sent as Content-Profile
	searchPath string
}

func (s *Server) newTxShape(pr request.Preferences, schema string) txShape {
	return txShape{prefer: pr, schema: schema, searchPath: dbexec.SearchPath(schema, s.cfg.DBExtraSearchPath)}
}

// readyTx readies x's transaction for a read of shape sh: its preferences and search
// path, and Content-Profile when several schemas are served.
func (s *Server) readyTx(x *exchange, sh *txShape) (appliedPrefs, error) {
	applied, err := s.preferences(sh.prefer, &x.tx)
	if err != nil {
		return applied, err
	}
	x.tx.SearchPath = sh.searchPath
	if len(s.cfg.DBSchemas) > 1 {
		x.w.Header().Set("Content-Profile", sh.schema)
	}
	return applied, nil
}

// readEntry is what a read of one shape runs and answers with. The one
// kept for a shape (see kept) holds none of the operands of the request
// it was made for.
type readEntry struct {
	txShape
	reply rowsReply
	stmts bound
}

// newReadEntry describes the read of plan p for req, without its
// statements, which the caller adds.
func (s *Server) newReadEntry(req *request.Request, p *plan.Read) *readEntry {
	e := &readEntry{txShape: s.newTxShape(req.Prefer, p.Relation.Schema), reply: newRowsReply(p)}
	e.reply.location = "/" + url.PathEscape(p.Relation.Name)
	return e
}

func (e *readEntry) kept() shape {
	stmts, ok := e.stmts.shape()
	if !ok {
		return nil
	}
	kept := *e
	kept.stmts = stmts
	kept.txShape.detach()
	detachMedia(&kept.reply.media)
	return &kept
}

func (e *readEntry) bind(t *request.Template) (bound, bool) { return e.stmts.bind(t) }

func (e *readEntry) run(s *Server, x *exchange, b bound) error { return s.runRead(x, e, b) }

// callEntry is what a GET or HEAD call of one shape runs and answers
// with. The one kept for a shape (see kept) holds none of the values of
// the request it was made for.
type callEntry struct {
	txShape
	returns snapshot.ReturnShape
	// rows answers a result read as rows; nil for one value.
	rows *rowsReply
	// single is set when the call must return exactly one row: a single
	// object was asked for and the function returns something.
	single bool
	stmts  bound
	// reads is set when the function is not VOLATILE: a GET of it only
	// reads, and a replica may serve it.
	reads bool
	// media is the negotiated representation of one value.
	media request.Media
}

// newCallEntry describes call c for req, without its statement, which
// the caller adds.
func (s *Server) newCallEntry(req *request.Request, c *plan.Call) *callEntry {
	e := &callEntry{txShape: s.newTxShape(req.Prefer, c.Function.Schema), returns: c.Function.Returns,
		single: req.Media.Kind == request.MediaObject && c.Function.Returns != snapshot.ReturnsVoid,
		reads:  c.Function.Volatility != snapshot.Volatile, media: req.Media}
	if c.ReturnsRows() {
		rep := newRowsReply(c.Read)
		e.rows = &rep
	}
	return e
}

func (e *callEntry) kept() shape {
	stmts, ok := e.stmts.shape()
	if !ok {
		return nil
	}
	kept := *e
	kept.stmts = stmts
	kept.txShape.detach()
	detachMedia(&kept.media)
	if e.rows != nil {
		rows := *e.rows
		detachMedia(&rows.media)
		kept.rows = &rows
	}
	return &kept
}

func (e *callEntry) bind(t *request.Template) (bound, bool) { return e.stmts.bind(t) }

// run runs a GET or HEAD call of a kept shape: read only, on a replica
// when the function only reads.
func (e *callEntry) run(s *Server, x *exchange, b bound) error {
	x.tx.ReadOnly, x.tx.Reads = true, e.reads
	return s.runCall(x, e, b.main)
}

// templates recycles the templates reads are matched by.
var templates = sync.Pool{New: func() any { return new(request.Template) }}
