package dbexec

import (
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestStatementCacheEvictsLeastRecentlyUsed: past its bound the cache
// drops the statement looked up least recently, not the one added first,
// so a statement every request runs stays prepared however many one-off
// statements pass through.
func TestStatementCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := &stmtCache{byKey: map[stmtID]*cachedStmt{}, budget: 1 << 40}
	key := func(i int) stmtKey { return newStmtKey("", "", "select "+strconv.Itoa(i), 0) }
	add := func(i int) {
		c.add(pendingStmt{key: key(i), name: "s" + strconv.Itoa(i), cost: 1}, &pgconn.StatementDescription{})
	}
	for i := range stmtCacheSize {
		add(i)
	}
	if _, ok := c.lookup(key(0)); !ok {
		t.Fatal("statement 0 is not kept")
	}
	add(stmtCacheSize)
	add(stmtCacheSize + 1)
	if _, ok := c.entry(key(0)); !ok {
		t.Error("the statement looked up last was evicted")
	}
	for _, i := range []int{1, 2} {
		if _, ok := c.entry(key(i)); ok {
			t.Errorf("statement %d, the least recently used, is kept", i)
		}
	}
	if want := []string{"s1", "s2"}; len(c.evicted) != 2 || c.evicted[0] != want[0] || c.evicted[1] != want[1] {
		t.Errorf("evicted %q, want %q", c.evicted, want)
	}
	if len(c.byKey) != stmtCacheSize || c.cost != stmtCacheSize {
		t.Errorf("%d statements of cost %d kept, want %d of %d", len(c.byKey), c.cost, stmtCacheSize, stmtCacheSize)
	}
}

// TestStatementCacheTellsTextsOfOneSum: the cache finds statements by
// their text's sum, and two texts that share one are still two
// statements: neither is taken for the other, and the later one prepared
// takes the place of the earlier.
func TestStatementCacheTellsTextsOfOneSum(t *testing.T) {
	c := &stmtCache{byKey: map[stmtID]*cachedStmt{}, budget: 1 << 40}
	a := stmtKey{sql: "select 1", sum: 7}
	b := stmtKey{sql: "select 2", sum: 7}
	c.add(pendingStmt{key: a, name: "a", cost: 1}, &pgconn.StatementDescription{})
	if _, ok := c.lookup(b); ok {
		t.Fatal("a statement of another text was found for its sum")
	}
	if desc, ok := c.lookup(a); !ok || desc.Name != "a" {
		t.Fatalf("statement a not found: %v", desc)
	}
	c.add(pendingStmt{key: b, name: "b", cost: 1}, &pgconn.StatementDescription{})
	if _, ok := c.lookup(a); ok {
		t.Error("statement a is still found once b took its sum")
	}
	if desc, ok := c.lookup(b); !ok || desc.Name != "b" {
		t.Errorf("statement b not found: %v", desc)
	}
	if len(c.evicted) != 1 || c.evicted[0] != "a" || c.cost != 1 {
		t.Errorf("evicted %q, cost %d; want a deallocated and one statement's cost", c.evicted, c.cost)
	}
}
