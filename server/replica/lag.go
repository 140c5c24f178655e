package replica

import (
	"sync"
	"time"
)

// history keeps the primary's flush position as sampled before each round
// of checks, long enough to tell a lag past the bound from one within it.
// A replica's lag is then how long ago the primary had flushed the oldest
// WAL the replica has not replayed: a measure that stays at zero while
// nothing is written, unlike the age of the last replayed transaction, and
// that needs no clock shared between the servers. WAL not flushed yet is
// none of a replica's lag, since no standby can have received it.
type history struct {
	mu      sync.Mutex
	samples []sample // oldest first
	keep    time.Duration
}

type sample struct {
	at  time.Time
	pos LSN
}

// add records the primary's flush position at a time, dropping the samples too
// old to matter.
func (h *history) add(at time.Time, pos LSN) {
	h.mu.Lock()
	defer h.mu.Unlock()
	drop := 0
	for drop < len(h.samples) && at.Sub(h.samples[drop].at) > h.keep {
		drop++
	}
	h.samples = append(h.samples[drop:], sample{at, pos})
}

// lag is how far a replica that has replayed up to replayed is behind, at
// now; the samples kept bound it from above, past the bound of interest.
// Without samples (the primary unreachable) nothing shows a lag.
func (h *history) lag(replayed LSN, now time.Time) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range h.samples {
		if s.pos > replayed {
			return now.Sub(s.at)
		}
	}
	return 0
}

// latest is the primary's last sampled flush position, 0 for none.
func (h *history) latest() LSN {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.samples) == 0 {
		return 0
	}
	return h.samples[len(h.samples)-1].pos
}
