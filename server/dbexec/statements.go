package dbexec

import (
	"math/rand/v2"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/svc-dev/svc/server/query"
)

// stmtCacheSize bounds the statements each connection keeps prepared. Request
// shapes repeat, so a few hundred cover a busy API; past that the least
// recently used statement is deallocated.
const stmtCacheSize = 256

// A statement prepared on a session costs its backend memory for as long
// as it is kept: its parse and query trees and, once it has run five
// times, a generic plan. Both grow with the statement, so a client sending
// ever new large shapes would, under the count alone, have each session
// keep hundreds of megabytes until it closes. The cache is therefore also
// bounded by the memory its statements are estimated to cost the backend
// (db-prepared-statements-max-bytes): from the length of the text, and
// from what PostgreSQL expands that the text does not show, which the
// statement's builder prices from the plan (query.Statement.Expansion).
// TestStatementCostCoversBackendMemory measures what PostgreSQL's memory
// contexts hold for SVC's kinds of statement and fails when the estimate
// falls below it.
const (
	// stmtCostFixed is what a statement costs whatever its length: its
	// memory contexts' first blocks.
	stmtCostFixed = 16 << 10
	// stmtCostPerByte is what a statement costs per byte of its text:
	// the trees and the plan its text parses into.
	stmtCostPerByte = 96
	// stmtMaxShare is the share of the budget past which a statement is
	// not prepared at all: one large statement does not take the room of
	// many ordinary ones, and a stream of one-off large shapes, which no
	// cache would serve twice, costs a parse each and nothing kept.
	stmtMaxShare = 16
)

// statementCost estimates the backend memory a prepared statement holds,
// generic plan included, from its text sql and its builder's estimate of
// what the text does not show (query.Statement.Expansion).
func statementCost(sql string, expansion int) int64 {
	return stmtCostFixed + stmtCostPerByte*int64(len(sql)) + int64(expansion)
}

// cost is statementCost of c's statement.
func (c *call) cost() int64 { return statementCost(c.key.sql, c.expansion) }

// defaultStmtBudget is db-prepared-statements-max-bytes's default, for a
// session not opened by OpenPool (in tests).
const defaultStmtBudget = 32 << 20

// stmtCache is one connection's named prepared statements.
//
// Statements are prepared inside the request transaction, after the role
// switch, because PostgreSQL checks schema USAGE while parsing. A statement
// is keyed by the role and search_path it was parsed under as well as its
// text: a role never runs a statement whose names were resolved with
// another role's privileges.
type stmtCache struct {
	// byKey holds the statements by their stmtID: the text's sum stands
	// for the text, which is compared once found (entry).
	byKey map[stmtID]*cachedStmt
	// recent holds the statements last found, each in the slot of its
	// sum: the few statements a session runs over and over are found
	// there without hashing their role and search_path for the map.
	recent [recentSlots]*cachedStmt
	// clock counts the lookups; a statement's used is the clock's reading
	// at its last, and the least recently used one is the one of least
	// used. Every request looks its statements up and few add any, so a
	// lookup only stamps the statement, and eviction, which is rare,
	// searches.
	clock uint64
	next  int
	// tag makes the session's statement names its own (newName).
	tag string
	// budget bounds cost, the statementCost of the statements kept.
	budget, cost int64
	// evicted holds names dropped from the cache and not yet deallocated on
	// the server; the next request on the connection deallocates them.
	evicted []string
}

type cachedStmt struct {
	key  stmtKey
	desc *pgconn.StatementDescription // Name is the statement's
	cost int64
	used uint64 // stmtCache.clock at the last lookup
}

// stmtKey identifies a prepared statement: its text and the role and
// search_path it was parsed under (empty for statements that resolve no
// names), with sum, query.SumSQL of the text. A struct rather than a
// joined string, so looking a statement up on every request allocates
// nothing.
type stmtKey struct {
	role, searchPath, sql string
	sum                   uint64
}

// newStmtKey is the key of sql parsed as role under searchPath; sum is
// query.SumSQL of sql when the caller has it (query.Statement.Sum), else
// 0 and computed here.
func newStmtKey(role, searchPath, sql string, sum uint64) stmtKey {
	if sum == 0 {
		sum = query.SumSQL(sql)
	}
	return stmtKey{role, searchPath, sql, sum}
}

// stmtID is what the cache's map hashes of a stmtKey: the text's sum in
// the text's place. Hashing a statement's text on every request cost
// more than the rest of finding it; the sum of a kept shape's statement
// is computed once, when it is kept.
type stmtID struct {
	role, searchPath string
	sum              uint64
}

func (k stmtKey) id() stmtID { return stmtID{k.role, k.searchPath, k.sum} }

// statementsOf returns conn's statement cache, creating it on first use.
func statementsOf(conn *pgconn.PgConn) *stmtCache { return sessionOf(conn).stmts() }

// stmts returns the session's statement cache, creating it on first use.
func (s *sessionState) stmts() *stmtCache {
	if s.statements == nil {
		s.statements = &stmtCache{byKey: map[stmtID]*cachedStmt{}, budget: defaultStmtBudget,
			tag: strconv.FormatUint(rand.Uint64()>>16, 36)}
	}
	return s.statements
}

// budgetStatements sets the estimated backend memory conn's prepared
// statements may hold (db-prepared-statements-max-bytes), before it
// prepares any.
func budgetStatements(conn *pgconn.PgConn, budget int64) {
	statementsOf(conn).budget = budget
}

// keeps reports whether a statement of that cost is prepared and kept on
// the connection; one that is not is parsed each time it runs, as an
// unnamed statement the backend drops at the next.
func (c *stmtCache) keeps(cost int64) bool {
	return cost <= c.budget/stmtMaxShare
}

// recentSlots is the size of stmtCache.recent.
const recentSlots = 64

// entry returns the statement kept for key, if there is one.
func (c *stmtCache) entry(key stmtKey) (*cachedStmt, bool) {
	slot := &c.recent[key.sum%recentSlots]
	if e := *slot; e != nil && e.key == key {
		return e, true
	}
	e, ok := c.byKey[key.id()]
	if !ok || e.key.sql != key.sql {
		return nil, false // another text of the same sum is not key's
	}
	// The entry takes the caller's copy of the text: a kept shape's
	// statement brings the same copy each time, and two strings at one
	// address compare without reading them.
	e.key.sql = key.sql
	*slot = e
	return e, true
}

// lookup returns the prepared statement for key, if there is one.
func (c *stmtCache) lookup(key stmtKey) (*pgconn.StatementDescription, bool) {
	e, ok := c.entry(key)
	if !ok {
		return nil, false
	}
	c.clock++
	e.used = c.clock
	return e.desc, true
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

// newName reserves a name for a statement about to be prepared. The
// session's random tag makes it one no other session uses, of this
// process or another: behind a pooler in transaction mode, a backend may
// hold statements other client sessions prepared, and a name they share
// would bind this session's values to another statement, perhaps with as
// many parameters, rather than fail (pooler.go).
func (c *stmtCache) newName() string {
	c.next++
	return "svc_" + c.tag + "_" + strconv.Itoa(c.next)
}

// add records a statement the server confirmed prepared, with the
// description it sent, evicting the least recently used ones while the
// cache holds more statements, or costs more, than it may.
func (c *stmtCache) add(st pendingStmt, desc *pgconn.StatementDescription) {
	desc.Name = st.name
	if e, ok := c.byKey[st.key.id()]; ok {
		// Prepared twice by one pipeline (a request running one statement
		// twice): the newer name serves, the older goes. So does another
		// text of the same sum.
		c.remove(e)
	}
	c.clock++
	c.byKey[st.key.id()] = &cachedStmt{key: st.key, desc: desc, cost: st.cost, used: c.clock}
	c.cost += st.cost
	for len(c.byKey) > stmtCacheSize || c.cost > c.budget {
		c.remove(c.leastRecent())
	}
}

// evict drops key's statement from the cache, to be deallocated on the
// server by the connection's next request.
func (c *stmtCache) evict(key stmtKey) {
	if e, ok := c.entry(key); ok {
		c.remove(e)
	}
}

// remove drops e's statement from the cache, to be deallocated on the
// server by the connection's next request.
func (c *stmtCache) remove(e *cachedStmt) {
	delete(c.byKey, e.key.id())
	if slot := &c.recent[e.key.sum%recentSlots]; *slot == e {
		*slot = nil
	}
	c.cost -= e.cost
	c.evicted = append(c.evicted, e.desc.Name)
}

// leastRecent returns the statement looked up least recently; the cache
// holds one at least.
func (c *stmtCache) leastRecent() *cachedStmt {
	var oldest *cachedStmt
	for _, e := range c.byKey {
		if oldest == nil || e.used < oldest.used {
			oldest = e
		}
	}
	return oldest
}
