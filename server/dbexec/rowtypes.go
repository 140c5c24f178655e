package dbexec

import (
	"log/slog"

	"github.com/jackc/pgx/v5/pgconn"
)

// A backend keeps every anonymous row type its statements registered
// until its session ends (query.Statement.RowTypes), outside what the
// prepared statements' budget bounds and whether or not anything is
// prepared. A session therefore keeps a ledger of the statements it has
// run that register row types, and is closed after a request that takes
// their estimate past its budget (db-session-row-types-max-bytes): the
// pool opens a new one when it needs one. Ordinary traffic repeats a few
// hundred shapes, whose row types cost a session well under the budget
// for its whole life; only a stream of new shapes retires sessions, one
// per budget's worth of them.

// defaultRowTypesBudget is db-session-row-types-max-bytes's default, for
// a session not opened by OpenPool (in tests).
const defaultRowTypesBudget = 16 << 20

// rowTypeLedger is what one session's statements have registered.
type rowTypeLedger struct {
	// seen holds the sums of the texts already counted (stmtKey.sum): a
	// collision only leaves one statement's row types uncounted. It holds no
	// more than budget / the least a statement's row types cost entries,
	// since the session is closed past its budget.
	seen map[uint64]struct{}
	// budget bounds cost, the estimated bytes of the row types counted.
	budget, cost int64
}

// rowTypesOf returns conn's ledger, creating it on first use.
func rowTypesOf(conn *pgconn.PgConn) *rowTypeLedger { return sessionOf(conn).ledger() }

// ledger returns the session's row type ledger, creating it on first use.
func (s *sessionState) ledger() *rowTypeLedger {
	if s.rowTypes == nil {
		s.rowTypes = &rowTypeLedger{seen: map[uint64]struct{}{}, budget: defaultRowTypesBudget}
	}
	return s.rowTypes
}

// budgetRowTypes sets the estimated backend memory the row types of
// conn's statements may hold (db-session-row-types-max-bytes), before it
// runs any. A Config built without its defaults (0) keeps the default.
func budgetRowTypes(conn *pgconn.PgConn, budget int64) {
	if budget > 0 {
		rowTypesOf(conn).budget = budget
	}
}

// note counts the row types of the calls' statements that the session
// has not run before.
func (l *rowTypeLedger) note(calls []call) {
	for i := range calls {
		c := &calls[i]
		if c.rowTypes == 0 {
			continue
		}
		if _, ok := l.seen[c.key.sum]; ok {
			continue
		}
		l.seen[c.key.sum] = struct{}{}
		l.cost += int64(c.rowTypes)
	}
}

// over reports whether the session's row types are estimated past its
// budget.
func (l *rowTypeLedger) over() bool { return l.cost > l.budget }

// retireIfOver closes conn, whose request has ended, when its row types
// (in s, its session's state) are estimated past its budget; the pool
// drops it when it is released.
func retireIfOver(conn *pgconn.PgConn, s *sessionState, log *slog.Logger) {
	l := s.ledger()
	if !l.over() || conn.IsClosed() {
		return
	}
	if log != nil {
		log.Info("closing a database session: the row types its statements registered are estimated past "+
			"db-session-row-types-max-bytes, memory its backend would keep until the session ends",
			"estimated_bytes", l.cost, "statements", len(l.seen))
	}
	discard(conn)
}
