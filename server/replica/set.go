package replica

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultInterval is the time between two rounds of checks. A check is
// one query on each replica and one on the primary; a replica that fails
// is skipped at most this long after.
const DefaultInterval = time.Second

// Options describe a Set.
type Options struct {
	// URIs are the standbys' connection strings (db-replica-uris).
	URIs []string
	// NewPool opens a request pool for one standby, as the primary's is
	// opened, so that requests run the same way on both.
	NewPool func(ctx context.Context, uri string) (*pgxpool.Pool, error)
	// Primary is the primary's request pool: checks read its WAL position
	// there, which the replicas' lag is measured against.
	Primary *pgxpool.Pool
	// MaxLag is the lag past which a replica serves no reads
	// (db-replica-max-lag), and the longest a new snapshot waits for the
	// replicas to replay it.
	MaxLag time.Duration
	// Interval is the time between rounds of checks; 0 is DefaultInterval.
	Interval time.Duration
	// Recheck is the least time between two reads of the primary's
	// position that positions sent back by clients make (Reached); 0 is
	// DefaultRecheck.
	Recheck time.Duration
	// Log is told when a replica starts or stops serving reads, at Notice
	// for the first and Warn for the second.
	Log    *slog.Logger
	Notice slog.Level
}

// Set is the replicas of one primary and the state reads are routed by.
type Set struct {
	replicas []*Replica
	primary  *pgxpool.Pool
	maxLag   time.Duration
	interval time.Duration
	log      *slog.Logger
	notice   slog.Level
	history  history
	// ceiling is how far the primary is known to have reached, which
	// positions clients send back are judged by (Reached).
	ceiling *ceiling
	next    atomic.Uint32
	// required is the position the latest snapshot loaded requires
	// (Require): a replica that has not replayed it serves no reads.
	required atomic.Uint64
	// primaryReads counts the reads a replica could have served that the
	// primary served, by Reason.
	primaryReads [reasons]atomic.Uint64
	// stopChecks and checksDone stop the checks Start runs.
	stopChecks context.CancelFunc
	checksDone chan struct{}
}

// New opens a pool for each of opts.URIs; nothing connects until the
// first request or check. Every replica is unused until its first check
// (Run) finds it healthy.
func New(ctx context.Context, opts Options) (*Set, error) {
	s := &Set{primary: opts.Primary, maxLag: opts.MaxLag, interval: opts.Interval, log: opts.Log, notice: opts.Notice}
	if s.interval <= 0 {
		s.interval = DefaultInterval
	}
	s.history.keep = s.maxLag + 2*s.interval
	recheck := opts.Recheck
	if recheck <= 0 {
		recheck = DefaultRecheck
	}
	s.ceiling = newCeiling(recheck, max(s.interval, time.Second), s.primaryPosition)
	names := map[string]int{}
	for i, uri := range opts.URIs {
		pool, err := opts.NewPool(ctx, uri)
		if err != nil {
			s.Close()
			// The URI may hold a password: name the entry by its place.
			return nil, fmt.Errorf("db-replica-uris, entry %d: %w", i+1, err)
		}
		r := newReplica(pool)
		if names[r.Name]++; names[r.Name] > 1 {
			r.Name = fmt.Sprintf("%s#%d", r.Name, names[r.Name])
		}
		s.replicas = append(s.replicas, r)
	}
	return s, nil
}

// Replicas returns the replicas in the order configured.
func (s *Set) Replicas() []*Replica { return s.replicas }

// Close stops the checks and closes the replicas' pools and check
// connections.
func (s *Set) Close() {
	if s.stopChecks != nil {
		s.stopChecks()
		<-s.checksDone
	}
	for _, r := range s.replicas {
		r.close()
		r.Pool.Close()
	}
}

// Start checks the replicas now and then every interval, in the
// background, until ctx ends or Close. Call it once.
func (s *Set) Start(ctx context.Context) {
	ctx, s.stopChecks = context.WithCancel(ctx)
	s.checksDone = make(chan struct{})
	go func() {
		defer close(s.checksDone)
		t := time.NewTicker(s.interval)
		defer t.Stop()
		for {
			s.Check(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// Check runs one round of checks: the primary's flush position, then every
// replica at once, each bounded by the interval (at least a second), so
// a replica that does not answer is marked as such rather than holding
// the round.
func (s *Set) Check(ctx context.Context) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, max(s.interval, time.Second))
	defer cancel()
	// The flush position, not PositionSQL's insert position: the lag is
	// about WAL a standby could have replayed, and on a quiet primary the
	// insert position may stay past anything flushed (snapshotPositionSQL)
	// long enough to make a replica that has replayed it all look behind.
	if pos, err := s.primaryFlushed(ctx); err == nil {
		s.history.add(time.Now(), pos)
		s.ceiling.raise(pos)
	}
	var wg sync.WaitGroup
	for _, r := range s.replicas {
		wg.Go(func() {
			p, err := r.probe(ctx)
			if parent.Err() != nil {
				return // stopping: the replica did nothing wrong
			}
			if ctx.Err() != nil && err != nil {
				err = fmt.Errorf("no answer within %s", max(s.interval, time.Second))
			}
			s.update(r, r.judge(p, err, &s.history, s.maxLag, time.Now()))
		})
	}
	wg.Wait()
}

// update stores a replica's new status and logs a change of health. The
// pool of a replica found unreachable is emptied: its connections are
// likely broken, and requests should not meet them once it is back.
func (s *Set) update(r *Replica, st Status) {
	old := r.status.Swap(&st)
	if old.Healthy && strings.HasPrefix(st.Reason, unreachable) {
		r.Pool.Reset()
	}
	if s.log == nil || old.Healthy == st.Healthy && reasonKind(old.Reason) == reasonKind(st.Reason) {
		return
	}
	if st.Healthy {
		s.log.Log(context.Background(), s.notice, "replica serving reads", "replica", r.Name, "lag", st.Lag.Round(time.Millisecond))
	} else {
		s.log.Warn("replica not serving reads; they go to other replicas or the primary", "replica", r.Name, "reason", st.Reason)
	}
}

// reasonKind is a reason without its figures ("unreachable", "promoted",
// "replay lags ..."), so that a replica lagging a little more each check
// is logged once.
func reasonKind(reason string) string {
	kind, _, _ := strings.Cut(reason, ":")
	kind, _, _ = strings.Cut(kind, " ")
	return kind
}

// primaryFlushed reads how far the primary has flushed its WAL
// (flushedSQL).
func (s *Set) primaryFlushed(ctx context.Context) (LSN, error) {
	var text string
	if err := s.primary.QueryRow(ctx, flushedSQL).Scan(&text); err != nil {
		return 0, err
	}
	return ParseLSN(text)
}

// primaryPosition reads the primary's position as write answers hand it
// out (PositionSQL), one round trip.
func (s *Set) primaryPosition(ctx context.Context) (LSN, error) {
	var text string
	if err := s.primary.QueryRow(ctx, PositionSQL).Scan(&text); err != nil {
		return 0, err
	}
	return ParseLSN(text)
}

// snapshotPosition reads the position a new snapshot requires
// (snapshotPositionSQL), one round trip.
func (s *Set) snapshotPosition(ctx context.Context) (LSN, error) {
	var text string
	if err := s.primary.QueryRow(ctx, snapshotPositionSQL).Scan(&text, nil); err != nil {
		return 0, err
	}
	return ParseLSN(text)
}

// Reason says why a read a replica could have served went to the primary.
type Reason int

// The reasons, each counted (svc_replica_primary_reads_total).
const (
	// NoneHealthy: no replica was healthy.
	NoneHealthy Reason = iota
	// NotReplayed: no healthy replica was known to have replayed the
	// position the read needs (read-your-writes, or the snapshot's).
	NotReplayed
	// Behind: the replica picked had not replayed the read's position
	// when the read ran there; the primary answered instead.
	Behind
	// Unavailable: the replica picked could not be used; the primary
	// answered instead.
	Unavailable
	reasons
)

var reasonNames = [reasons]string{"none_healthy", "not_replayed", "replica_behind", "replica_unavailable"}

func (r Reason) String() string { return reasonNames[r] }

// Pick returns the replica a read that needs the WAL position after
// (0 for none) runs on: a healthy one known to have replayed after and
// the snapshot's position, the least busy of them, in turn among equals.
// The caller calls Done on it once the read is over. Pick returns nil,
// counting why, when the primary must serve the read.
func (s *Set) Pick(after LSN) *Replica {
	need := max(after, LSN(s.required.Load()))
	n := len(s.replicas)
	start := int(s.next.Add(1))
	var best *Replica
	var bestLoad int64
	healthy := false
	for i := range n {
		r := s.replicas[(start+i)%n]
		st := r.status.Load()
		if !st.Healthy {
			continue
		}
		healthy = true
		if st.Replayed < need {
			continue
		}
		if load := r.inFlight.Load(); best == nil || load < bestLoad {
			best, bestLoad = r, load
		}
	}
	if best == nil {
		if healthy {
			s.Rerouted(NotReplayed)
		} else {
			s.Rerouted(NoneHealthy)
		}
		return nil
	}
	best.inFlight.Add(1)
	best.requests.Add(1)
	return best
}

// HandedOut records a position a write's answer carried: the primary has
// reached it, so a client sending it back needs no read of the primary's
// position (Reached).
func (s *Set) HandedOut(pos LSN) { s.ceiling.raise(pos) }

// Reached reports whether the primary has reached pos, a position a
// client sent back: false for one ahead of anything the primary has
// written, which no replica will ever have replayed, and which the caller
// then ignores. Judging a position past what this server knows costs one
// read of the primary's position, shared with the requests waiting for
// it, at most one every Options.Recheck (see ceiling).
func (s *Set) Reached(ctx context.Context, pos LSN) bool { return s.ceiling.reached(ctx, pos) }

// PositionsIgnored counts the positions Reached found ahead of the
// primary.
func (s *Set) PositionsIgnored() uint64 { return s.ceiling.ignored.Load() }

// PositionReads counts the reads of the primary's position Reached made.
func (s *Set) PositionReads() uint64 { return s.ceiling.reads.Load() }

// PrimaryReads counts the reads the primary served for reason.
func (s *Set) PrimaryReads(reason Reason) uint64 { return s.primaryReads[reason].Load() }

// Rerouted counts a read the primary served for reason.
func (s *Set) Rerouted(reason Reason) { s.primaryReads[reason].Add(1) }
