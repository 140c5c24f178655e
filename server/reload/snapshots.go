package reload

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/logging"
	"github.com/svc-dev/svc/server/suggest"
	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/sql/catalog"
	"github.com/svc-dev/svc/sql/snapstore"
)

// Source produces a fresh snapshot: from a file written by svc-introspect,
// or by introspecting the live database.
type Source interface {
	Load(ctx context.Context) (*snapshot.Snapshot, error)
	// Describe names the source in log lines.
	Describe() string
}

// FileSource reads a snapshot file.
type FileSource struct{ Path string }

// Load decodes the file; it never touches the database.
func (f FileSource) Load(context.Context) (*snapshot.Snapshot, error) {
	return snapshot.ReadFile(f.Path)
}

// Describe names the file.
func (f FileSource) Describe() string { return "file " + f.Path }

// LiveSource introspects the database, as svc-introspect dump would. Used
// when no snapshot is configured; it runs at start and on reload, never
// while serving a request.
type LiveSource struct {
	URI     string
	Options catalog.Options
	// Log, when set, is told of exposed schemas that do not exist.
	Log *slog.Logger
}

// Load introspects over a connection of its own rather than a pooled one:
// pooled connections run in the request execution mode (see dbexec.NewPool), and
// introspection is rare enough that a fresh connection costs nothing.
//
// Exposed schemas that do not exist are logged (unless Options says
// otherwise) and the others served, as PostgREST serves them: requests for
// the missing ones are answered as for an empty schema (404), where
// failing the load would answer every request 503.
func (l LiveSource) Load(ctx context.Context) (*snapshot.Snapshot, error) {
	conn, err := dbexec.Connect(ctx, l.URI)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	opts := l.Options
	if opts.MissingSchemas == nil {
		opts.MissingSchemas = func(missing, existing []string) error {
			if l.Log != nil {
				l.Log.Log(ctx, logging.LevelNotice, MissingSchemasMessage(missing, existing))
			}
			return nil
		}
	}
	return catalog.Introspect(ctx, conn, opts)
}

// MissingSchemasMessage says which exposed schemas do not exist and, for
// each, the existing schema its name is closest to, if any is close.
func MissingSchemasMessage(missing, existing []string) string {
	absent, meant := suggest.Missing("exposed schema", missing, existing)
	return absent + " (db-schemas); serving the others, and answering requests for it as for an empty schema" + meant
}

// Describe says the snapshot is live.
func (l LiveSource) Describe() string { return "live introspection" }

// Snapshots holds the snapshot requests are served with. A request loads
// it once and keeps that value to the end, so a swap never changes the
// schema under a request in flight.
type Snapshots struct {
	source  Source
	log     *slog.Logger
	current atomic.Pointer[snapshot.Snapshot]
	// reloading serialises reloads; concurrent NOTIFYs must not race to
	// swap in an older snapshot after a newer one.
	reloading sync.Mutex
	// onReload, when set, is told of every reload's outcome (metrics).
	onReload func(snap *snapshot.Snapshot, took time.Duration, err error)
	// check, when set, must accept a loaded snapshot before it is swapped
	// in (Require).
	check func(*snapshot.Snapshot) error
	// gate, when set, runs between loading a snapshot and putting it in
	// force, and on a reload that found nothing changed (Gate).
	gate func(ctx context.Context, changed bool)
	// pool, when set, is the request pool whose sessions a reload retires
	// when the catalog changed (Sessions); signature is the catalog's
	// signature taken with the snapshot in force.
	pool      *pgxpool.Pool
	signature dbexec.Signature
	// loadedFrom describes the source of the snapshot in force: one
	// loaded from another (a configuration reload that names another) is
	// put in force and logged even when nothing else changed.
	loadedFrom string
	// quietUntil is when a reload that changes nothing is next logged at
	// notice level rather than info (unchangedNotice).
	quietUntil time.Time
	// swapped are told of each snapshot put in force (OnSwap), by the
	// number OnSwap gave them.
	swapMu   sync.Mutex
	swapped  map[int]func(*snapshot.Snapshot)
	nextSwap int
	// health, when set, holds the problem of a snapshot the source gives
	// that Require refuses (UseHealth).
	health *Health
}

// UseHealth has a snapshot that Require refuses (one that does not cover
// db-schemas: a rollback published too far back) recorded in h until one
// is put in force, as keeping the server from being ready while it has no
// snapshot at all; it is logged as an error once, and at info level on
// each later attempt while it lasts. Set it before the first Reload.
func (s *Snapshots) UseHealth(h *Health) {
	s.reloading.Lock()
	defer s.reloading.Unlock()
	s.health = h
}

// refused records in health a snapshot Require refused, and reports
// whether that is news to log.
func (s *Snapshots) refused(err error) bool {
	if s.health == nil {
		return true
	}
	p := Problem{Component: "snapshot", Problem: "the snapshot " + s.source.Describe() + " gives cannot be used: " + err.Error(),
		Fix: "put in force a snapshot that covers db-schemas (the error says which), or expose only what it covers"}
	if s.current.Load() == nil {
		p.NotReady = true
		p.Problem += "; no snapshot is in force, requests are answered 503"
	} else {
		p.Problem += "; the snapshot in force stays"
	}
	return s.health.Set(p)
}

// Gate has fn run after each snapshot is loaded and before it is put in
// force, with changed set, under the reload lock: replicas are given the
// time to replay the schema it describes (AwaitReplicas). A reload that
// finds nothing changed runs it too, with changed unset: the migration it
// may follow can have changed what no snapshot holds (a policy), which
// the replicas must replay all the same. Set it before the first Reload.
func (s *Snapshots) Gate(fn func(ctx context.Context, changed bool)) {
	s.reloading.Lock()
	defer s.reloading.Unlock()
	s.gate = fn
}

// Sessions has every later Reload take the catalog's signature
// (dbexec.SignPool: the ids and names of what the exposed schemas hold and
// use, one query on a session of pool) and compare it, and the
// fingerprint, with those of the snapshot in force. Both equal, and the
// source the same, the reload changes nothing: it swaps nothing in and
// retires nothing, so that a notification anyone who can connect may send
// costs a snapshot read and one query. Another fingerprint, or a
// signature pool's sessions were not opened with, retires them before the
// new snapshot is put in force (dbexec.RetireFor): a migration may drop
// and create objects under the same names, which leaves the fingerprint
// as it was and the ids they cached pointing at nothing. A reload that
// fails retires them only if the signature changed or cannot be taken:
// the source may be what failed while the database did change. Set it
// before the first Reload.
func (s *Snapshots) Sessions(pool *pgxpool.Pool) {
	s.reloading.Lock()
	defer s.reloading.Unlock()
	s.pool = pool
}

// OnReload has fn told of every later Reload: the snapshot swapped in
// (nil on failure), how long loading took, and the error; told once the
// snapshot is in force, after the gate (Gate), so that what fn records
// as the time it was loaded is when it was put in force. Set it before
// the first Reload; fn runs under the reload lock and must be quick.
func (s *Snapshots) OnReload(fn func(snap *snapshot.Snapshot, took time.Duration, err error)) {
	s.reloading.Lock()
	defer s.reloading.Unlock()
	s.onReload = fn
}

// OnSwap has fn told of every snapshot put in force from now on, right
// after the swap, until stop is called: what a handler keeps of the
// snapshot before (the root documents) is freed then rather than at its
// next request. Unlike OnReload, any number may listen, so each
// configuration's handler listens while it serves; fn runs under the
// reload lock and must be quick.
func (s *Snapshots) OnSwap(fn func(*snapshot.Snapshot)) (stop func()) {
	s.swapMu.Lock()
	defer s.swapMu.Unlock()
	if s.swapped == nil {
		s.swapped = map[int]func(*snapshot.Snapshot){}
	}
	id := s.nextSwap
	s.nextSwap++
	s.swapped[id] = fn
	return func() {
		s.swapMu.Lock()
		defer s.swapMu.Unlock()
		delete(s.swapped, id)
	}
}

// tellSwapped tells the OnSwap listeners that snap is in force.
func (s *Snapshots) tellSwapped(snap *snapshot.Snapshot) {
	s.swapMu.Lock()
	defer s.swapMu.Unlock()
	for _, fn := range s.swapped {
		fn(snap)
	}
}

// Require has every later Reload refuse a snapshot check rejects, keeping
// the one in force, as a load that fails does; nil accepts any. The
// Runtime requires what start-up requires of a snapshot (that it cover
// the exposed schemas), so no reload swaps in one start-up would refuse.
func (s *Snapshots) Require(check func(*snapshot.Snapshot) error) {
	s.reloading.Lock()
	defer s.reloading.Unlock()
	s.check = check
}

// NewSnapshots returns a holder that loads from source; call Reload before serving.
func NewSnapshots(source Source, log *slog.Logger) *Snapshots {
	return &Snapshots{source: source, log: log}
}

// Source returns where snapshots are loaded from.
func (s *Snapshots) Source() Source {
	s.reloading.Lock()
	defer s.reloading.Unlock()
	return s.source
}

// SetSource changes where the next Reload loads from (a configuration
// reload that exposes other schemas).
func (s *Snapshots) SetSource(src Source) {
	s.reloading.Lock()
	defer s.reloading.Unlock()
	s.source = src
}

// Current returns the snapshot in force, or nil before the first load.
func (s *Snapshots) Current() *snapshot.Snapshot { return s.current.Load() }

// Reload builds a new snapshot beside the current one and swaps it in. On
// failure the current snapshot stays in force and the error says why.
func (s *Snapshots) Reload(ctx context.Context) error {
	_, err := s.reload(ctx, true)
	return err
}

// Refresh is Reload for a Queue: it reports whether the reload changed
// anything, false when it found nothing changed or failed (and logged
// why), so that a storm of notifications is spaced out further.
func (s *Snapshots) Refresh(ctx context.Context) bool {
	changed, _ := s.reload(ctx, true)
	return changed
}

// Start loads the first snapshot. A failure only an operator can mend (a
// snapshot file that cannot be read, nothing published in the database)
// is returned without being logged, for the caller to report once and
// stop: retrying would only hide it. Any other (the database away, a
// published snapshot Require refuses, which the next publish mends) is
// logged, and retried in the background until a snapshot loads or ctx
// ends (LoadRetrying), requests being answered 503 meanwhile.
func (s *Snapshots) Start(ctx context.Context, maxBackoff time.Duration) error {
	_, err := s.reload(ctx, false)
	if err == nil {
		return nil
	}
	src := s.Source()
	if _, file := src.(FileSource); file || errors.Is(err, snapstore.ErrNotPublished) {
		return err
	}
	// The database away, or a published snapshot that does not cover
	// db-schemas (refused, which UseHealth records): the server stays up,
	// not ready, until a publish or the database mends it.
	s.log.Error("schema snapshot not loaded; requests are answered 503 until one is", "source", src.Describe(), "error", errors.Unwrap(err))
	go s.LoadRetrying(ctx, maxBackoff)
	return nil
}

// reload is Reload, logging a failure only when logFailure is set, and
// reporting whether it put a snapshot in force.
func (s *Snapshots) reload(ctx context.Context, logFailure bool) (changed bool, err error) {
	s.reloading.Lock()
	defer s.reloading.Unlock()
	start := time.Now()
	snap, err := s.load(ctx)
	if err == nil && s.check != nil {
		if err = s.check(snap); err != nil {
			snap = nil
		}
	}
	if err != nil {
		if s.onReload != nil {
			s.onReload(nil, time.Since(start), err)
		}
		// The source may be what failed while the database did change.
		if old := s.current.Load(); old != nil {
			s.retireChanged(s.sign(ctx, old.Header.Schemas))
		}
		level := slog.LevelError
		if errors.Is(err, ErrNotCovered) && !s.refused(err) {
			level = slog.LevelInfo // said already; retried until mended
		}
		if logFailure {
			msg := "schema snapshot reload failed; keeping the current snapshot"
			if s.current.Load() == nil {
				msg = "schema snapshot not loaded; requests are answered 503 until one is"
			}
			s.log.Log(ctx, level, msg, "source", s.source.Describe(), "error", err)
		}
		return false, fmt.Errorf("reload from %s: %w", s.source.Describe(), err)
	}
	s.health.Clear("snapshot")
	sig := s.sign(ctx, snap.Header.Schemas)
	old := s.current.Load()
	sameShape := old != nil && old.Header.Fingerprint == snap.Header.Fingerprint
	if sameShape && s.pool != nil && sig.Equal(s.signature) && dbexec.Knows(s.pool, sig) && s.source.Describe() == s.loadedFrom {
		if s.gate != nil {
			s.gate(ctx, false)
		}
		if s.onReload != nil {
			s.onReload(old, time.Since(start), nil)
		}
		level := slog.LevelInfo
		if now := time.Now(); now.After(s.quietUntil) {
			level, s.quietUntil = logging.LevelNotice, now.Add(unchangedNotice)
		}
		s.log.Log(ctx, level, fmt.Sprintf("schema snapshot loaded in %d ms", time.Since(start).Milliseconds()),
			"source", s.source.Describe(), "fingerprint", short(snap.Header.Fingerprint),
			"changed", "nothing: the snapshot in force stays, no database session is retired")
		return false, nil
	}
	// Told after the swap, not now: the gate may wait for replicas, and
	// until the swap the snapshot in force, and when it was loaded
	// (/snapshot's loaded_at), is the old one.
	took := time.Since(start)
	if s.gate != nil {
		s.gate(ctx, true)
	}
	// Before the swap: no request planned on the new snapshot may run on
	// a session that knew the old catalog. A new shape retires them too:
	// what they prepared was planned for the old one.
	if sameShape {
		s.retireChanged(sig)
	} else if s.pool != nil {
		dbexec.RetireFor(s.pool, sig)
	}
	idsChanged := !sig.Equal(s.signature)
	s.signature, s.loadedFrom, s.quietUntil = sig, s.source.Describe(), time.Time{}
	s.current.Swap(snap)
	if s.onReload != nil {
		s.onReload(snap, took, nil)
	}
	s.tellSwapped(snap)
	h := snap.Header
	attrs := []any{"source", s.source.Describe(), "fingerprint", short(h.Fingerprint),
		"dumped", h.CreatedAt.Format(time.RFC3339), "schemas", strings.Join(h.Schemas, ","),
		"relations", len(snap.Content.Relations), "functions", len(snap.Content.Functions)}
	switch {
	case sameShape && s.pool != nil && idsChanged:
		attrs = append(attrs, "changed", "object ids only")
	case sameShape && s.pool != nil:
		attrs = append(attrs, "changed", "the source only")
	case sameShape:
		attrs = append(attrs, "changed", false)
	}
	s.log.Log(ctx, logging.LevelNotice, fmt.Sprintf("schema snapshot loaded in %d ms", time.Since(start).Milliseconds()), attrs...)
	return true, nil
}

// pooledSource is a Source that reads on a pooled session, and reads no
// more than it must when the snapshot in force is still current
// (DBSource.LoadFrom).
type pooledSource interface {
	LoadFrom(ctx context.Context, pool *pgxpool.Pool, current *snapshot.Snapshot) (*snapshot.Snapshot, error)
}

// load loads from the source, on a session of the pool Sessions set when
// the source can, within signTimeout: a reload must not hang on a pool
// that requests hold.
func (s *Snapshots) load(ctx context.Context) (*snapshot.Snapshot, error) {
	if ps, ok := s.source.(pooledSource); ok && s.pool != nil {
		ctx, cancel := context.WithTimeout(ctx, signTimeout)
		defer cancel()
		return ps.LoadFrom(ctx, s.pool, s.current.Load())
	}
	return s.source.Load(ctx)
}

// sign takes the catalog's signature for schemas, Sum "" when it cannot
// be taken (or no pool is set), which nothing equals.
func (s *Snapshots) sign(ctx context.Context, schemas []string) dbexec.Signature {
	if s.pool == nil {
		return dbexec.Signature{Schemas: schemas}
	}
	ctx, cancel := context.WithTimeout(ctx, signTimeout)
	defer cancel()
	sig, err := dbexec.SignPool(ctx, s.pool, schemas)
	if err != nil {
		s.log.Warn("the catalog's signature could not be taken; the pooled database sessions are retired", "error", err)
		sig.Sum = ""
	}
	return sig
}

// unchangedNotice is how often at most a reload that changes nothing is
// logged at notice level, which every log-level shows, so that an
// operator sees a notification acted on; the others, such as a storm of
// notifications any role may send, are logged at info level.
const unchangedNotice = time.Minute

// signTimeout bounds the wait for a pooled session to take a signature
// on: a reload must not hang on a pool that requests hold.
const signTimeout = 10 * time.Second

// retireChanged retires the pool's sessions unless they already know the
// catalog sig describes.
func (s *Snapshots) retireChanged(sig dbexec.Signature) {
	if s.pool != nil && !dbexec.Knows(s.pool, sig) {
		dbexec.RetireFor(s.pool, sig)
	}
}

// LoadRetrying loads the first snapshot, retrying with backoff (up to
// maxBackoff between attempts) until it succeeds or ctx ends, so a server
// started while the database is away serves as soon as it is back.
func (s *Snapshots) LoadRetrying(ctx context.Context, maxBackoff time.Duration) {
	backoff := 100 * time.Millisecond
	for s.Current() == nil && ctx.Err() == nil {
		if s.Reload(ctx) == nil {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, maxBackoff)
	}
}

func short(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}
