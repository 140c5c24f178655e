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
	c := &stmtCache{byKey: map[stmtKey]*cachedStmt{}, budget: 1 << 40}
	key := func(i int) stmtKey { return stmtKey{sql: "select " + strconv.Itoa(i)} }
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
	if _, ok := c.byKey[key(0)]; !ok {
		t.Error("the statement looked up last was evicted")
	}
	for _, i := range []int{1, 2} {
		if _, ok := c.byKey[key(i)]; ok {
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
