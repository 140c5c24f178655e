package replica

import (
	"context"
	"sync/atomic"
	"time"
)

// DefaultRecheck is the least time between two reads of the primary's
// position that a position sent back by a client makes (Reached).
const DefaultRecheck = 10 * time.Millisecond

// ceiling is how far the primary's WAL is known to reach: a position sent
// back in SVC-Commit-LSN past it was never handed out, and is ignored
// rather than obeyed, since no replica could ever have replayed it and
// every read carrying it would go to the primary.
//
// What is known comes for free from the checks (the primary's flush
// position, once an interval) and from this server's own write answers
// (HandedOut). A position past both may still be real: another svc-serve
// node may have handed it out since the last check. So a position past
// what is known has the primary's position read again (PositionSQL, the
// one write answers hand out) before it is judged, by one read that began
// after the request carrying it arrived: the client had the position by
// then, so a real one lies at or before what that read finds. Reads are
// one at a time and at least the recheck apart; requests arriving
// meanwhile wait for the next one. A client that forges positions then
// costs the primary at most one such read per recheck, however many reads
// it sends, and each of its reads waits at most about a recheck and a
// round trip before it runs on a replica.
type ceiling struct {
	known atomic.Uint64
	// turn admits one request at a time to read the primary's position;
	// lastRead is when the last read began and lastFailed whether it
	// failed, both written under turn.
	turn       chan struct{}
	lastRead   time.Time
	lastFailed bool
	recheck    time.Duration
	// read reads the primary's position, within timeout.
	read    func(ctx context.Context) (LSN, error)
	timeout time.Duration

	reads   atomic.Uint64 // reads of the primary's position made
	ignored atomic.Uint64 // positions found ahead of the primary
}

func newCeiling(recheck, timeout time.Duration, read func(ctx context.Context) (LSN, error)) *ceiling {
	return &ceiling{turn: make(chan struct{}, 1), recheck: recheck, timeout: timeout, read: read}
}

// raise records that the primary has reached pos.
func (c *ceiling) raise(pos LSN) {
	for {
		old := c.known.Load()
		if uint64(pos) <= old || c.known.CompareAndSwap(old, uint64(pos)) {
			return
		}
	}
}

// reached reports whether the primary had reached pos by the time it was
// asked, reading the primary's position when what is known falls short.
// When that position cannot be read, pos is taken to be real: obeying a
// forged one sends a read to the primary, ignoring a real one could
// answer it without the client's own write.
func (c *ceiling) reached(ctx context.Context, pos LSN) bool {
	if uint64(pos) <= c.known.Load() {
		return true
	}
	arrived := time.Now()
	select {
	case c.turn <- struct{}{}:
	case <-ctx.Done():
		return true
	}
	defer func() { <-c.turn }()
	if uint64(pos) <= c.known.Load() {
		return true
	}
	if c.lastRead.After(arrived) {
		// A read that began after this request arrived found the primary
		// short of pos, or could not tell.
		if c.lastFailed {
			return true
		}
		c.ignored.Add(1)
		return false
	}
	if wait := time.Until(c.lastRead.Add(c.recheck)); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return true
		}
	}
	c.lastRead = time.Now()
	c.reads.Add(1)
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	current, err := c.read(ctx)
	if c.lastFailed = err != nil; c.lastFailed {
		return true
	}
	c.raise(current)
	if uint64(pos) <= c.known.Load() {
		return true
	}
	c.ignored.Add(1)
	return false
}
