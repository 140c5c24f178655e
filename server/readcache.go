package server

import (
	"sync"

	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// Reads repeat a few shapes with ever-changing values: a page of books by
// one author, then by another. For each shape (request.Template) the
// server keeps what parsing, planning and building the statements made of
// the first such read, and a later read of the shape binds its own filter
// operands into the kept statements, skipping all three. Entries belong
// to the snapshot they were planned against: the first read after a swap
// empties the cache.

// readCacheSize bounds the shapes kept. Shapes repeat, so a few hundred
// cover a busy API; past the bound an arbitrary entry makes room.
const readCacheSize = 1024

// readCache holds the read shapes of the current snapshot.
type readCache struct {
	mu      sync.Mutex
	snap    *snapshot.Snapshot
	entries map[string]*readEntry
}

// get returns the entry of key planned against snap, or nil.
func (c *readCache) get(snap *snapshot.Snapshot, key []byte) *readEntry {
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
func (c *readCache) put(snap *snapshot.Snapshot, key []byte, e *readEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap != snap || c.entries == nil {
		c.snap, c.entries = snap, make(map[string]*readEntry)
	}
	if len(c.entries) >= readCacheSize {
		for k := range c.entries {
			delete(c.entries, k)
			break
		}
	}
	c.entries[string(key)] = e
}

// readEntry is what a read of one shape runs and answers with. The one
// kept for a shape (see shape) holds none of the operands of the request
// it was made for.
type readEntry struct {
	prefer     request.Preferences
	schema     string // the relation's schema, sent as Content-Profile
	searchPath string
	reply      rowsReply
	read       query.Statement
	// count is the planner's estimate of the row count, when the read
	// asks for one.
	count *query.Statement
}

// newReadEntry describes the read of plan p for req, without its
// statements, which the caller adds.
func (s *Server) newReadEntry(req *request.Request, p *plan.Read) *readEntry {
	return &readEntry{prefer: req.Prefer, schema: p.Relation.Schema,
		searchPath: searchPath(p.Relation.Schema, s.cfg.DBExtraSearchPath), reply: newRowsReply(p)}
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

// bind returns e's statements with the operands of the read whose filters
// are filters (request.Template.Filters), and false if they do not fit.
func (e *readEntry) bind(filters []request.Filter) (read query.Statement, count *query.Statement, ok bool) {
	if read, ok = e.read.Bind(filters); !ok {
		return read, nil, false
	}
	if e.count != nil {
		c, ok := e.count.Bind(filters)
		if !ok {
			return read, nil, false
		}
		count = &c
	}
	return read, count, true
}

// templates recycles the templates reads are matched by.
var templates = sync.Pool{New: func() any { return new(request.Template) }}
