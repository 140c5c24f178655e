package replica

import (
	"context"
	"sync"
	"time"
)

// awaitPoll is how often AwaitReplay asks a replica how far it has come.
const awaitPoll = 20 * time.Millisecond

// Require makes every later Pick skip a replica not known to have
// replayed pos: the position a new snapshot was read at, so that the
// routes it adds never reach a replica that lacks their tables. A lower
// position than one already required changes nothing.
func (s *Set) Require(pos LSN) {
	for {
		old := s.required.Load()
		if uint64(pos) <= old || s.required.CompareAndSwap(old, uint64(pos)) {
			return
		}
	}
}

// Required is the position Require last raised the bar to.
func (s *Set) Required() LSN { return LSN(s.required.Load()) }

// AwaitSnapshot readies the replicas for a snapshot just loaded. It reads
// the primary's position, which lies past the migrations the snapshot
// describes and which the standbys can reach without another write
// (snapshotPositionSQL); requires it of every replica (Require); retires
// every replica's sessions; and gives the healthy replicas up to the
// maximum lag to replay that far (AwaitReplay). It returns the position
// and the replicas still behind it, or the error that kept it from reading
// the position; then nothing is required.
//
// A session caches what it learnt of the catalog: the statements prepared
// on it, with the type ids of their parameters, and extensions' per-session
// state. After a migration that recreated objects under the same names, a
// session opened before its replica replayed the migration fails ("cache
// lookup failed for type"). So no read may run on a replica session opened
// before that replica replayed pos, and the order matters: once pos is
// required, Pick sends no read to a replica that has not replayed it; the
// reset then closes the idle sessions at once and the busy ones when
// released; and since sessions are opened only for the reads Pick sends, a
// session opened afterwards on a replica is opened after it replayed pos.
// The one exception is a read Pick sent there just before the position
// was required that opens its session just after the reset. Reads that a
// replica would have served with the old snapshot go to the primary while
// the replicas replay, usually a moment.
func (s *Set) AwaitSnapshot(ctx context.Context) (pos LSN, behind []string, err error) {
	return s.await(ctx, true)
}

// AwaitPosition is AwaitSnapshot without retiring the replicas' sessions,
// for a reload that found the catalog as the sessions know it (the same
// snapshot, the same object ids). The migration it may follow changed
// only what sessions do not cache (a policy, a function's body, a grant),
// which reads must still see once the reload is done: the position is
// required all the same. It costs the primary a transaction id, like
// AwaitSnapshot, and the replicas nothing.
func (s *Set) AwaitPosition(ctx context.Context) (pos LSN, behind []string, err error) {
	return s.await(ctx, false)
}

func (s *Set) await(ctx context.Context, retire bool) (pos LSN, behind []string, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.maxLag)
	defer cancel()
	pos, err = s.snapshotPosition(ctx)
	if err == nil {
		s.Require(pos)
	}
	if retire {
		// Without a position too: the reload says the catalog may have
		// changed.
		for _, r := range s.replicas {
			r.Pool.Reset()
		}
	}
	if err != nil {
		return 0, nil, err
	}
	return pos, s.AwaitReplay(ctx, pos), nil
}

// AwaitReplay waits until every healthy replica has replayed pos, asking
// each directly rather than waiting for the next check, for at most the
// maximum lag: a healthy replica replays within it. It returns the names
// of the replicas that had not by then; they are no slower to come back
// than any replica found lagging, since the checks go on.
func (s *Set) AwaitReplay(ctx context.Context, pos LSN) (behind []string) {
	ctx, cancel := context.WithTimeout(ctx, s.maxLag)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, r := range s.replicas {
		if st := r.Status(); !st.Healthy || st.Replayed >= pos {
			continue
		}
		wg.Go(func() {
			if !r.awaitReplay(ctx, pos) {
				mu.Lock()
				behind = append(behind, r.Name)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return behind
}

// awaitReplay polls r until it has replayed pos, reporting whether it did
// before ctx ended.
func (r *Replica) awaitReplay(ctx context.Context, pos LSN) bool {
	for {
		p, err := r.probe(ctx)
		if err == nil && p.recovering && !p.noReplay {
			r.Observed(p.replayed)
			if p.replayed >= pos {
				return true
			}
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(awaitPoll):
		}
	}
}
