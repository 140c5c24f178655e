package gcheadroom

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// After a burst (large answers, many at once) the heap holds memory the
// requests no longer use: buffers kept in sync.Pools, which only a
// collection empties (and a pooled one survives a first), and free pages
// the scavenger returns to the system a little at a time. With few
// requests after it, no collection comes for up to two minutes (the
// runtime's forced one), and a streamed answer allocates too little to
// bring one on, so a process that served a burst would keep its peak for
// minutes, which is what a container's limit and its neighbours see.
//
// So when the process serves no request (the caller's quiet) and its
// heap holds more than minRelease above what it held after the last
// release, the releaser runs two collections (emptying the pools) and
// returns every free page at once (debug.FreeOSMemory): a few
// milliseconds of work on a small live heap, at most every releaseEvery.
// What is left then is what the process holds at rest, the next
// release's floor; a heap that grew for good (a larger snapshot) raises
// it, so it is not released again and again.

// releaseEvery is the least time between two releases.
const releaseEvery = 10 * time.Second

// minRelease is the least memory worth a release: what the requests in
// flight allocate between two collections anyway (server-gc-headroom's
// default).
const minRelease = 16 << 20

// releaser returns the heap's memory after a burst.
type releaser struct {
	quiet  func() bool
	sample []metrics.Sample
	// floor is what the heap held after the last release, last when it
	// ran.
	floor uint64
	last  time.Time
}

func newReleaser(quiet func() bool) *releaser {
	return &releaser{quiet: quiet, sample: samplesOf("/memory/classes/heap/objects:bytes",
		"/memory/classes/heap/unused:bytes", "/memory/classes/heap/free:bytes")}
}

// held is the heap's memory the system has not been given back: its
// objects, live or not yet collected, the unused room in their spans,
// and its free pages.
func (r *releaser) held() uint64 {
	metrics.Read(r.sample)
	var n uint64
	for _, s := range r.sample {
		n += s.Value.Uint64()
	}
	return n
}

// step releases the heap's memory when the process is quiet and the heap
// holds minRelease more than after the last release, which was
// releaseEvery before now or more. It reports whether it did.
func (r *releaser) step(now time.Time) bool {
	if now.Sub(r.last) < releaseEvery || !r.quiet() || r.held() <= r.floor+minRelease {
		return false
	}
	runtime.GC()
	debug.FreeOSMemory()
	r.floor, r.last = r.held(), now
	return true
}
