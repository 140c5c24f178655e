package dbexec

import (
	"container/list"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
)

// stmtCacheSize bounds the statements each connection keeps prepared. Request
// shapes repeat, so a few hundred cover a busy API; past that the least
// recently used statement is deallocated.
const stmtCacheSize = 256

// stmtCacheKey is where a connection's statement cache lives in its
// pgconn custom data, so the cache is born and dies with the connection.
const stmtCacheKey = "svc.statements"

// stmtCache is one connection's named prepared statements.
//
// Statements are prepared inside the request transaction, after the role
// switch, because PostgreSQL checks schema USAGE while parsing. A statement
// is keyed by the role and search_path it was parsed under as well as its
// text: a role never runs a statement whose names were resolved with
// another role's privileges.
type stmtCache struct {
	byKey map[stmtKey]*list.Element
	lru   list.List // of *cachedStmt, most recently used first
	next  int
	// evicted holds names dropped from the cache and not yet deallocated on
	// the server; the next request on the connection deallocates them.
	evicted []string
}

type cachedStmt struct {
	key  stmtKey
	desc *pgconn.StatementDescription // Name is the statement's
}

// stmtKey identifies a prepared statement: its text and the role and
// search_path it was parsed under (empty for statements that resolve no
// names). A struct rather than a joined string, so looking a statement up
// on every request allocates nothing.
type stmtKey struct {
	role, searchPath, sql string
}

// statementsOf returns conn's statement cache, creating it on first use.
func statementsOf(conn *pgconn.PgConn) *stmtCache {
	data := conn.CustomData()
	if c, ok := data[stmtCacheKey].(*stmtCache); ok {
		return c
	}
	c := &stmtCache{byKey: map[stmtKey]*list.Element{}}
	data[stmtCacheKey] = c
	return c
}

// lookup returns the prepared statement for key, if there is one.
func (c *stmtCache) lookup(key stmtKey) (*pgconn.StatementDescription, bool) {
	e, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*cachedStmt).desc, true
}

// allPrepared reports whether every call's statement is prepared on the
// connection and no evicted one waits to be deallocated, and names each
// call's statement in its name.
func (c *stmtCache) allPrepared(calls []call) bool {
	if len(c.evicted) > 0 {
		return false
	}
	for i := range calls {
		desc, ok := c.lookup(calls[i].key)
		if !ok {
			return false
		}
		calls[i].name = desc.Name
	}
	return true
}

// newName reserves a name for a statement about to be prepared.
func (c *stmtCache) newName() string {
	c.next++
	return "svc_" + strconv.Itoa(c.next)
}

// add records a statement the server confirmed prepared as name, with
// the description it sent, evicting the least recently used one when the
// cache is full.
func (c *stmtCache) add(key stmtKey, name string, desc *pgconn.StatementDescription) {
	desc.Name = name
	c.byKey[key] = c.lru.PushFront(&cachedStmt{key: key, desc: desc})
	if c.lru.Len() > stmtCacheSize {
		old := c.lru.Remove(c.lru.Back()).(*cachedStmt)
		delete(c.byKey, old.key)
		c.evicted = append(c.evicted, old.desc.Name)
	}
}

// evict drops key's statement from the cache, to be deallocated on the
// server by the connection's next request.
func (c *stmtCache) evict(key stmtKey) {
	e, ok := c.byKey[key]
	if !ok {
		return
	}
	old := c.lru.Remove(e).(*cachedStmt)
	delete(c.byKey, key)
	c.evicted = append(c.evicted, old.desc.Name)
}
