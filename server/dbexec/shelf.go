package dbexec

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// A shelf hands the primary pool's sessions from request to request, and
// queues the requests that find none free, so that a request's session
// does not go through pgxpool each time: pgxpool's acquire and release
// each take two locks (its pool's and its semaphore's) and read the
// clock, and a request waiting in it waits in its semaphore's queue of
// its own channels: several times what floorserver's channel of sessions
// costs, in perf profiles of the load benchmark's lookups and inserts
// (deploy/bench/RESULTS.md has the figures).
//
// pgxpool stays the pool that opens, checks, ages and closes sessions;
// the shelf only holds those it took (out, at most the pool's size), and
// gives one back to pgxpool whenever pgxpool has a part to play:
//   - the session is closed, busy or in a transaction, or was opened
//     before the pool retired its sessions: pgxpool closes it, and the
//     next request waiting on the shelf takes its place in pgxpool;
//   - it has sat on the shelf a tick (shelfTick) or more: pgxpool then
//     pings it before its next use and closes it once idle for
//     db-pool-max-idletime;
//   - it is given back two ticks or more after it left pgxpool, however
//     busy the requests keep it: pgxpool then checks its lifetime
//     (db-pool-max-lifetime), and what takes a session from pgxpool
//     directly (the admin's /ready, a reload's queries) waits for one at
//     most a few ticks, however busy the requests keep the sessions.
type shelf struct {
	pool *pgxpool.Pool
	size int
	// handoff carries a session given back to a request waiting on the
	// shelf, or nil for a place in pgxpool given up to it (see
	// passOn). What it holds is out of pgxpool, so never more than size.
	handoff chan *pgxpool.Conn

	mu sync.Mutex
	// idle is the shelved sessions, the last given back on top.
	idle []shelved
	// out counts the sessions taken from pgxpool, and the places in it
	// taken for requests still acquiring one; at most size.
	out int
	// waiting counts the requests waiting on the shelf that no handoff
	// is meant for yet. A request is never waiting while idle holds a
	// session.
	waiting int
	// closed is set by ClosePool: what is given back then goes to pgxpool.
	closed bool
	// stats are what the shelf adds to pgxpool's statistics (PoolStatOf).
	stats shelfStats
	// tick advances every period (shelfTick) while sessions are out
	// (sweep); timing is set while its timer is due.
	tick   atomic.Uint64
	period time.Duration
	timing bool
	timer  *time.Timer
}

// shelved is a session on the shelf.
type shelved struct {
	conn *pgxpool.Conn
	s    *sessionState
}

// shelfStats counts what went through the shelf rather than pgxpool.
type shelfStats struct {
	// taken counts the sessions requests took from the shelf or were
	// handed; waits the requests that waited on the shelf, and waited
	// how long they waited; canceled those whose wait ended without a
	// session (timeout or client gone).
	taken, waits, canceled int64
	waited                 time.Duration
}

// shelfTick is how often the sessions out of pgxpool are looked at.
const shelfTick = 100 * time.Millisecond

func newShelf(pool *pgxpool.Pool, size int) *shelf {
	sh := &shelf{pool: pool, size: size, handoff: make(chan *pgxpool.Conn, size), idle: make([]shelved, 0, size),
		period: shelfTick}
	sh.timer = time.AfterFunc(time.Hour, sh.sweep)
	sh.timer.Stop()
	return sh
}

// acquire takes a session for a request of context ctx: the last one
// shelved, else one from pgxpool while fewer than the pool's size are
// out, else the next one a request gives back, waiting at most timeout.
// left reports that the wait ended because the request's client left.
func (sh *shelf) acquire(ctx context.Context, ps *poolSessions, timeout time.Duration) (conn *pgxpool.Conn, left bool, err error) {
	sh.mu.Lock()
	for n := len(sh.idle); n > 0; n = len(sh.idle) {
		top := sh.idle[n-1]
		sh.idle[n-1] = shelved{}
		sh.idle = sh.idle[:n-1]
		if ps.retiredSince(top.s) {
			sh.out--
			sh.mu.Unlock()
			top.conn.Release()
			sh.mu.Lock()
			continue
		}
		sh.stats.taken++
		sh.mu.Unlock()
		return top.conn, false, nil
	}
	placed := sh.out < sh.size
	if placed {
		sh.reserve()
	} else {
		sh.waiting++
		sh.stats.waits++
	}
	sh.mu.Unlock()

	wait := startWait(ctx, timeout)
	defer wait.end()
	if !placed {
		conn, placed = sh.await(wait, timeout)
		if conn != nil {
			return conn, false, nil
		}
		if !placed {
			return nil, wait.ended.Load() == waitLeft, wait.Err()
		}
	}
	conn, err = sh.pool.Acquire(wait)
	if err != nil {
		sh.passOn()
		return nil, wait.ended.Load() == waitLeft, err
	}
	sessionOf(conn.Conn().PgConn()).takenTick = sh.tick.Load()
	return conn, false, nil
}

// await waits on the shelf until a session is handed over, or a place in
// pgxpool (placed), or wait ends.
func (sh *shelf) await(wait *waitCtx, timeout time.Duration) (conn *pgxpool.Conn, placed bool) {
	handed := true
	select {
	case conn = <-sh.handoff:
	case <-wait.Done():
		sh.mu.Lock()
		// A handoff may be on its way, counted for this request; if none
		// is, the request leaves the queue.
		if handed = sh.waiting == 0; !handed {
			sh.waiting--
		}
		sh.mu.Unlock()
		if handed {
			conn = <-sh.handoff
		}
	}
	sh.mu.Lock()
	switch {
	case !handed:
		sh.stats.canceled++
	case conn != nil:
		sh.stats.taken++
	}
	sh.stats.waited += timeout - time.Until(wait.deadline)
	sh.mu.Unlock()
	return conn, handed && conn == nil
}

// reserve takes a place in pgxpool; sh.mu is held.
func (sh *shelf) reserve() {
	sh.out++
	if !sh.timing {
		sh.timing = true
		sh.timer.Reset(sh.period)
	}
}

// passOn gives up a place in pgxpool: to the next request waiting on
// the shelf, if one is, and then reports that one was.
func (sh *shelf) passOn() (handed bool) {
	sh.mu.Lock()
	sh.out--
	if sh.waiting == 0 {
		sh.mu.Unlock()
		return false
	}
	sh.waiting--
	sh.reserve()
	sh.mu.Unlock()
	sh.handoff <- nil
	return true
}

// put gives back a session a request took through the shelf: to the
// next request waiting on the shelf, onto the shelf, or to pgxpool when
// pgxpool has a part to play (see shelf). It reports whether it gave the
// session, or its place in pgxpool, to a waiting request.
func (sh *shelf) put(ps *poolSessions, conn *pgxpool.Conn) (handed bool) {
	pc := conn.Conn().PgConn()
	s := sessionOf(pc)
	sound := !pc.IsClosed() && !pc.IsBusy() && pc.TxStatus() == 'I' && !ps.retiredSince(s)
	sh.mu.Lock()
	if tick := sh.tick.Load(); sound && !sh.closed && tick-s.takenTick < 2 {
		if sh.waiting > 0 {
			sh.waiting--
			sh.mu.Unlock()
			sh.handoff <- conn
			return true
		}
		s.shelvedTick = tick
		sh.idle = append(sh.idle, shelved{conn, s})
		sh.mu.Unlock()
		return false
	}
	sh.mu.Unlock()
	conn.Release()
	return sh.passOn()
}

// sweep runs each shelfTick while sessions are out of pgxpool: it
// advances the tick and gives pgxpool the sessions shelved before the
// last one, which have sat on the shelf a tick or more.
func (sh *shelf) sweep() {
	sh.mu.Lock()
	tick := sh.tick.Add(1)
	var old []*pgxpool.Conn
	kept := sh.idle[:0]
	for _, e := range sh.idle {
		if tick-e.s.shelvedTick >= 2 {
			old = append(old, e.conn)
		} else {
			kept = append(kept, e)
		}
	}
	clear(sh.idle[len(kept):])
	sh.idle = kept
	sh.out -= len(old)
	if sh.out > 0 {
		sh.timer.Reset(sh.period)
	} else {
		sh.timing = false
	}
	sh.mu.Unlock()
	for _, conn := range old {
		conn.Release()
	}
}

// drain gives pgxpool every shelved session, and with closing every
// session given back from now on.
func (sh *shelf) drain(closing bool) {
	sh.mu.Lock()
	all := sh.idle
	sh.idle = make([]shelved, 0, sh.size)
	sh.out -= len(all)
	sh.closed = sh.closed || closing
	sh.mu.Unlock()
	for _, e := range all {
		e.conn.Release()
	}
}

// PoolStat is a request pool's statistics as pgxpool keeps them, with
// what went through the primary's shelf added: its sessions counted as
// idle rather than acquired, the sessions requests took from it among the
// acquires, and the waits on it among the waits.
type PoolStat struct {
	*pgxpool.Stat
	shelved int32
	shelf   shelfStats
}

// PoolStatOf reads pool's statistics.
func PoolStatOf(pool *pgxpool.Pool) PoolStat {
	st := PoolStat{Stat: pool.Stat()}
	if sh := sessionsOf(pool).shelf; sh != nil {
		sh.mu.Lock()
		st.shelved, st.shelf = int32(len(sh.idle)), sh.stats
		sh.mu.Unlock()
	}
	return st
}

// AcquiredConns is the sessions in use.
func (st PoolStat) AcquiredConns() int32 { return st.Stat.AcquiredConns() - st.shelved }

// IdleConns is the open sessions none is using.
func (st PoolStat) IdleConns() int32 { return st.Stat.IdleConns() + st.shelved }

// AcquireCount is how many times a session was handed out.
func (st PoolStat) AcquireCount() int64 { return st.Stat.AcquireCount() + st.shelf.taken }

// AcquireDuration is the time spent getting sessions.
func (st PoolStat) AcquireDuration() time.Duration {
	return st.Stat.AcquireDuration() + st.shelf.waited
}

// EmptyAcquireCount is how many acquires had to wait for a session.
func (st PoolStat) EmptyAcquireCount() int64 { return st.Stat.EmptyAcquireCount() + st.shelf.waits }

// EmptyAcquireWaitTime is the time the acquires that had to wait waited.
func (st PoolStat) EmptyAcquireWaitTime() time.Duration {
	return st.Stat.EmptyAcquireWaitTime() + st.shelf.waited
}

// CanceledAcquireCount is how many acquires ended without a session.
func (st PoolStat) CanceledAcquireCount() int64 {
	return st.Stat.CanceledAcquireCount() + st.shelf.canceled
}

// ClosePool closes a request pool: the sessions on its shelf go back to
// pgxpool at once, rather than at the next tick, so that pgxpool's Close,
// which waits for every session it handed out, does not wait for them.
func ClosePool(pool *pgxpool.Pool) {
	if sh := sessionsOf(pool).shelf; sh != nil {
		sh.drain(true)
	}
	pool.Close()
}
