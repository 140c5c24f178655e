package dbexec

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// What a session caches of the catalog is object ids: of the relations,
// types and functions its statements used, and an extension's own (PostGIS
// its geometry type's). The snapshot's fingerprint cannot tell when those
// change: it is a function of names and shapes, so that two dumps of one
// schema are equal, and a migration that drops and creates objects under
// the same names leaves it as it was. A Signature is the other half: the
// ids and names of what the exposed schemas hold and use, hashed in
// PostgreSQL into one short value, taken in one query. It is taken when a
// reload runs (reload.Snapshots) and, at most once per catalogCheckInterval
// and pool, when a request meets an internal error its statements do not
// explain (stale.go); never on a request's ordinary path.

// Signature identifies the catalog objects a pool's sessions may have
// cached, for a set of exposed schemas.
type Signature struct {
	// Schemas are the exposed schemas the signature covers.
	Schemas []string
	// Sum hashes the ids and names of those schemas, what they hold
	// (relations, functions, types), the types their columns and
	// functions use, and the extensions installed; "" when it could not
	// be taken, which no signature taken equals.
	Sum string
}

// Equal reports whether s and o cover the same schemas with the same sum,
// a sum taken.
func (s Signature) Equal(o Signature) bool {
	return s.Sum != "" && s.Sum == o.Sum && slices.Equal(s.Schemas, o.Schemas)
}

// signatureSQL is the one query a signature costs: catalog indexes only,
// over the exposed schemas, so its cost follows their size, not the
// database's. Types include the element and base types of those used
// (arrays, domains); extensions are all of them, few, and what a drop and
// create of one changes first.
const signatureSQL = `with ns as (
	select oid, nspname from pg_catalog.pg_namespace where nspname = any($1::text[])
), rel as (
	select c.oid, c.relname from pg_catalog.pg_class c join ns on c.relnamespace = ns.oid
	where c.relkind in ('r', 'v', 'm', 'f', 'p', 'S', 'c')
), fn as (
	select p.oid, p.proname, p.prorettype, coalesce(p.proallargtypes, p.proargtypes::pg_catalog.oid[]) as args
	from pg_catalog.pg_proc p join ns on p.pronamespace = ns.oid
), used as (
	select t.oid from pg_catalog.pg_type t join ns on t.typnamespace = ns.oid
	union select a.atttypid from pg_catalog.pg_attribute a join rel on a.attrelid = rel.oid where a.attnum > 0 and not a.attisdropped
	union select prorettype from fn
	union select pg_catalog.unnest(args) from fn
), typ as (
	select t.oid, t.typname, t.typelem, t.typbasetype from pg_catalog.pg_type t join used on t.oid = used.oid
)
select pg_catalog.md5(coalesce(pg_catalog.string_agg(item, ',' order by item), '')) from (
	select 'n' || oid || ' ' || nspname from ns
	union all select 'r' || oid || ' ' || relname from rel
	union all select 'f' || oid || ' ' || proname from fn
	union all select 't' || oid || ' ' || typname from typ
	union all select 't' || t.oid || ' ' || t.typname from pg_catalog.pg_type t
		where t.oid in (select typelem from typ union select typbasetype from typ)
	union all select 'e' || oid || ' ' || extname || ' ' || extversion from pg_catalog.pg_extension
) items(item)`

// SignCatalog takes the signature of the catalog for schemas on conn, in
// one query that reads the catalog only.
func SignCatalog(ctx context.Context, conn *pgx.Conn, schemas []string) (Signature, error) {
	sig := Signature{Schemas: slices.Clone(schemas)}
	err := conn.QueryRow(ctx, signatureSQL, schemas).Scan(&sig.Sum)
	return sig, err
}

// SignPool is SignCatalog on a session of pool, which waits for one as
// a request does.
func SignPool(ctx context.Context, pool *pgxpool.Pool, schemas []string) (Signature, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return Signature{Schemas: slices.Clone(schemas)}, err
	}
	defer conn.Release()
	return SignCatalog(ctx, conn.Conn(), schemas)
}

// Knows reports whether pool's sessions, those opened since its last
// retirement, were opened with the catalog sig describes.
func Knows(pool *pgxpool.Pool, sig Signature) bool {
	known := sessionsOf(pool).known.Load()
	return known != nil && known.Equal(sig)
}

// RetireFor retires pool's sessions (RetireSessions) and records that
// those it opens from now on know the catalog sig describes: a request's
// internal error is then told from a stale session's by comparing the
// catalog's signature with sig.
func RetireFor(pool *pgxpool.Pool, sig Signature) {
	ps := sessionsOf(pool)
	ps.known.Store(&sig)
	// A check taken before now says nothing of the sessions opened after.
	ps.check.forget()
	RetireSessions(pool)
}

// catalogCheckInterval is the least time between two signatures a pool
// takes for requests that met an internal error: the most a flood of
// requests raising internal errors can cost, and also how long a
// migration committed without a reload may go unnoticed after a check
// (its own notification closes that gap).
const catalogCheckInterval = time.Second

// catalogCheck is the last signature a pool took for a request's internal
// error, shared by those that fail within catalogCheckInterval.
type catalogCheck struct {
	mu  sync.Mutex
	at  time.Time
	sum string
}

// recent returns the last sum taken, if it is recent enough to share.
func (c *catalogCheck) recent(now time.Time) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sum, !c.at.IsZero() && now.Sub(c.at) < catalogCheckInterval
}

func (c *catalogCheck) record(at time.Time, sum string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at, c.sum = at, sum
}

func (c *catalogCheck) forget() { c.record(time.Time{}, "") }
