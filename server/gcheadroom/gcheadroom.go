// Package gcheadroom sets the runtime's memory policy while svc-serve
// runs: it keeps the garbage collector's heap target a fixed headroom
// above the live heap, instead of Go's default of twice the live heap, and
// gives the heap's free memory back to the system after a burst.
//
// A server's live heap is small (a few MiB besides the snapshot) while every
// request allocates a few KiB, so with Go's default the collector runs every
// few hundred requests. A fixed headroom makes collections rarer by the
// factor it grows the heap target by, and it stays bounded: the memory it
// adds is at most the headroom, however large the snapshot is. Where the
// live heap is already larger than the headroom, Go's default applies.
// svc-serve keeps server-gc-headroom's worth; deploy/bench's insert
// workload on the split topology is where it shows.
package gcheadroom

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// every is how often the live heap is read. It changes slowly (with the
// snapshot and the pools), so once a second is plenty.
const every = time.Second

// Run keeps the heap target headroom bytes above the live heap until ctx
// ends, then puts Go's default back, and returns the heap's memory after
// a burst once quiet reports no work in hand (release.go). The target is left alone when the GOGC
// environment variable is set (the operator has chosen) or headroom is 0.
func Run(ctx context.Context, headroom uint64, quiet func() bool) {
	var t *tuner
	if _, set := os.LookupEnv("GOGC"); !set && headroom > 0 {
		t = newTuner(headroom)
		defer debug.SetGCPercent(100)
	}
	r := newReleaser(quiet)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if t != nil {
			t.step()
		}
		r.step(time.Now())
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// tuner holds the headroom and the runtime metrics it reads.
type tuner struct {
	headroom uint64
	samples  []metrics.Sample
}

func newTuner(headroom uint64) *tuner {
	return &tuner{headroom: headroom, samples: samplesOf(sampled...)}
}

// samplesOf are metrics.Read's samples for the named metrics, in order.
func samplesOf(names ...string) []metrics.Sample {
	s := make([]metrics.Sample, len(names))
	for i, name := range names {
		s[i].Name = name
	}
	return s
}

// sampled are, first, what GOGC is a percentage of (the live heap,
// goroutine stacks and globals, as of the last collection), then GOGC in
// force: read rather than remembered, so that another Run in the process
// (tests start several servers) cannot leave it changed behind this one.
var sampled = []string{"/gc/heap/live:bytes", "/gc/scan/stack:bytes", "/gc/scan/globals:bytes", "/gc/gogc:percent"}

// step sets GOGC for what the last collection found. Small changes are left
// alone: each SetGCPercent recomputes the collector's pacing.
func (t *tuner) step() {
	metrics.Read(t.samples)
	if t.samples[0].Value.Uint64() == 0 {
		return // no collection yet
	}
	var base uint64
	for _, s := range t.samples[:3] {
		base += s.Value.Uint64()
	}
	p, now := percent(base, t.headroom), int(t.samples[3].Value.Uint64())
	if p*10 < now*9 || p*10 > now*11 {
		debug.SetGCPercent(p)
	}
}

// percent is the GOGC that puts the heap target headroom bytes above what
// the collector found (base: the live heap, stacks and globals), never
// below Go's default of 100.
//
// The runtime scales its minimum heap target (4 MiB) by GOGC as well, so
// over a base of a MiB or two the plain ratio would set a target far above
// base + headroom; the second bound keeps that minimum at base + headroom.
func percent(base, headroom uint64) int {
	const heapMinimum = 4 << 20 // the runtime's, at GOGC=100
	if base == 0 || headroom <= base {
		return 100
	}
	p := min(headroom*100/base, (base+headroom)*100/heapMinimum)
	return max(int(p), 100)
}
