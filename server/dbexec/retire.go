package dbexec

import (
	"sync"
	"sync/atomic"
	"weak"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A pooled session keeps what it learnt of the catalog: its prepared
// statements carry the ids of the types, relations and functions they
// were planned with, and extensions keep caches of their own per backend
// (PostGIS the id of its geometry type). A migration that drops an object
// and creates it again under the same name leaves those ids pointing at
// nothing, and the session answers "cache lookup failed for type N" for as
// long as it lives. Only a new backend starts clean: DISCARD ALL drops
// statements and plans, not an extension's caches. So sessions are
// retired, not reset: RetireSessions (RetireFor) on a schema reload that
// finds the catalog changed (signature.go), and when a request proves a
// session stale (stale.go).

// poolSessions is what SVC keeps beside one request pool about its
// sessions.
type poolSessions struct {
	// retirements counts RetireSessions calls; a session records the count
	// when it is opened, so a session opened before the last retirement is
	// known to be one the pool will close on release.
	retirements atomic.Uint64
	// probe admits one request at a time to check the catalog's
	// signature (stale.go), so that requests failing together take one,
	// not one each.
	probe chan struct{}
	// known is the signature of the catalog the sessions opened since the
	// last retirement know (RetireFor); nil until one is recorded.
	known atomic.Pointer[Signature]
	// check is the last signature taken for a request's internal error.
	check catalogCheck
	// lost is set while the database is known not to be reached: before
	// start-up reaches it, and after a request found it away (reach.go).
	lost atomic.Bool
	// pooler is what the pool knows of a transaction pooler in front of
	// it (pooler.go).
	pooler poolerState
	// probed is set once start-up has looked for such a pooler.
	probed atomic.Bool
	// shelf holds the sessions between requests: the primary pool's only
	// (NewPool), nil for the others.
	shelf *shelf
}

// pools maps each request pool OpenPool made to its poolSessions, by a
// weak pointer, so that a closed pool is not kept alive by the map.
var pools sync.Map // weak.Pointer[pgxpool.Pool] -> *poolSessions

func newPoolSessions() *poolSessions {
	return &poolSessions{probe: make(chan struct{}, 1)}
}

// sessionsOf returns pool's poolSessions; a pool not opened by OpenPool
// gets one of its own, kept like the others.
func sessionsOf(pool *pgxpool.Pool) *poolSessions {
	key := weak.Make(pool)
	if ps, ok := pools.Load(key); ok {
		return ps.(*poolSessions)
	}
	ps, _ := pools.LoadOrStore(key, newPoolSessions())
	return ps.(*poolSessions)
}

// recordEpoch notes, on a session being opened, how many retirements its
// pool has seen.
func (ps *poolSessions) recordEpoch(pc *pgconn.PgConn) {
	s := sessionOf(pc)
	s.epoch, s.epochSet = ps.retirements.Load(), true
}

// retiredSince reports whether the pool retired its sessions after s's
// was opened: it then goes when released, and every session the pool
// hands out is newer than the retirement.
func (ps *poolSessions) retiredSince(s *sessionState) bool {
	return !s.epochSet || ps.retirements.Load() > s.epoch
}

// RetireSessions retires every session pool holds: the idle ones close at
// once, those running a request close when it releases them, and later
// requests get sessions opened from now on, which know the catalog as it
// is now. It costs each retired session a reconnection on its next use
// (a backend start and the statements prepared again), so it is meant
// for a catalog proven changed, never for what a client may ask as
// often as it likes.
func RetireSessions(pool *pgxpool.Pool) {
	ps := sessionsOf(pool)
	ps.retirements.Add(1)
	pool.Reset()
	if ps.shelf != nil {
		// pgxpool closes them now, as it did its idle ones; the shelf
		// would hand none of them out again in any case (shelf.acquire).
		ps.shelf.drain(false)
	}
}
