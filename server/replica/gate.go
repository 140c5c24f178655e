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

// AwaitSnapshot readies the replicas for a snapshot just loaded: it reads
// the primary's position, which lies past the migrations the snapshot
// describes and which the standbys can reach without another write
// (snapshotPositionSQL), gives the healthy replicas up to the maximum lag
// to replay that far (AwaitReplay), and then requires it of every replica
// (Require). It returns the position and the replicas still behind it, or
// the error that kept it from reading the position; then nothing is
// required.
func (s *Set) AwaitSnapshot(ctx context.Context) (pos LSN, behind []string, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.maxLag)
	defer cancel()
	if pos, err = s.snapshotPosition(ctx); err != nil {
		return 0, nil, err
	}
	behind = s.AwaitReplay(ctx, pos)
	s.Require(pos)
	return pos, behind, nil
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
