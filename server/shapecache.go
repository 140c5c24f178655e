package server

import (
	"net/http"
	"sync"

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

// shapeCacheSize bounds the shapes kept. Shapes repeat, so a few hundred
// cover a busy API; past the bound an arbitrary entry makes room.
const shapeCacheSize = 1024

// shapeCache holds the entries E of the shapes of the current snapshot.
type shapeCache[E any] struct {
	mu      sync.Mutex
	snap    *snapshot.Snapshot
	entries map[string]*E
}

// get returns the entry of key planned against snap, or nil.
func (c *shapeCache[E]) get(snap *snapshot.Snapshot, key []byte) *E {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap != snap {
		return nil
	}
	return c.entries[string(key)]
}

// put keeps e for key, planned against snap. A read still in flight
// on an older snapshot may put after a swap; that empties the cache
// once more and costs nothing else, as get checks the snapshot.
func (c *shapeCache[E]) put(snap *snapshot.Snapshot, key []byte, e *E) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap != snap || c.entries == nil {
		c.snap, c.entries = snap, make(map[string]*E)
	}
	if len(c.entries) >= shapeCacheSize {
		for k := range c.entries {
			delete(c.entries, k)
			break
		}
	}
	c.entries[string(key)] = e
}

// len is the number of shapes kept.
func (c *shapeCache[E]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// txShape is what a read's transaction takes from its shape: the
// preferences, and the schema of the relation or function read.
type txShape struct {
	prefer     request.Preferences
	schema     string // sent as Content-Profile
	searchPath string
}

func (s *Server) newTxShape(pr request.Preferences, schema string) txShape {
	return txShape{prefer: pr, schema: schema, searchPath: searchPath(schema, s.cfg.DBExtraSearchPath)}
}

// readyTx readies tx for a read of shape sh: its preferences and search
// path, and Content-Profile when several schemas are served.
func (s *Server) readyTx(w http.ResponseWriter, tx *txSpec, sh *txShape) (honoured, error) {
	applied, err := s.preferences(sh.prefer, tx)
	if err != nil {
		return applied, err
	}
	tx.searchPath = sh.searchPath
	if len(s.cfg.DBSchemas) > 1 {
		w.Header().Set("Content-Profile", sh.schema)
	}
	return applied, nil
}

// readEntry is what a read of one shape runs and answers with. The one
// kept for a shape (see shape) holds none of the operands of the request
// it was made for.
type readEntry struct {
	txShape
	reply rowsReply
	read  query.Statement
	// count is the planner's estimate of the row count, when the read
	// asks for one.
	count *query.Statement
}

// newReadEntry describes the read of plan p for req, without its
// statements, which the caller adds.
func (s *Server) newReadEntry(req *request.Request, p *plan.Read) *readEntry {
	return &readEntry{txShape: s.newTxShape(req.Prefer, p.Relation.Schema), reply: newRowsReply(p)}
}

// shape returns e fit to keep for other reads of its shape, or nil when
// its statements serve their own request only.
func (e *readEntry) shape() *readEntry {
	read, ok := e.read.Shape()
	if !ok {
		return nil
	}
	kept := *e
	kept.read = read
	if e.count != nil {
		count, ok := e.count.Shape()
		if !ok {
			return nil
		}
		kept.count = &count
	}
	return &kept
}

// bind returns e's statements with the values of the read t is the
// template of, and false if they do not fit.
func (e *readEntry) bind(t *request.Template) (read query.Statement, count *query.Statement, ok bool) {
	if read, ok = e.read.Bind(t); !ok {
		return read, nil, false
	}
	if e.count != nil {
		c, ok := e.count.Bind(t)
		if !ok {
			return read, nil, false
		}
		count = &c
	}
	return read, count, true
}

// callEntry is what a GET or HEAD call of one shape runs and answers
// with. The one kept for a shape (see shape) holds none of the values of
// the request it was made for.
type callEntry struct {
	txShape
	returns snapshot.ReturnShape
	// rows answers a result read as rows; nil for one value.
	rows *rowsReply
	// single is set when the call must return exactly one row: a single
	// object was asked for and the function returns something.
	single bool
	stmt   query.Statement
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

// shape returns e fit to keep for other calls of its shape, or nil when
// its statement serves its own request only.
func (e *callEntry) shape() *callEntry {
	stmt, ok := e.stmt.Shape()
	if !ok {
		return nil
	}
	kept := *e
	kept.stmt = stmt
	return &kept
}

// templates recycles the templates reads are matched by.
var templates = sync.Pool{New: func() any { return new(request.Template) }}
