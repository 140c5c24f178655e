package gcheadroom

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// The tests change the process's GOGC, so none runs in parallel and each
// puts the value it found back.

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name           string
		base, headroom uint64
		want           int
	}{
		{"no collection yet", 0, 16 * mib, 100},
		{"base a quarter of the headroom", 4 * mib, 16 * mib, 400},
		{"base just under the headroom", 15 * mib, 16 * mib, 106},
		{"base as large as the headroom", 16 * mib, 16 * mib, 100},
		{"base larger than the headroom", 200 * mib, 16 * mib, 100},
		{"a small base: the runtime's minimum target decides", 2 * mib, 16 * mib, 450},
		{"a tiny base", 10, 16 * mib, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := percent(tc.base, tc.headroom); got != tc.want {
				t.Errorf("percent(%d, %d) = %d, want %d", tc.base, tc.headroom, got, tc.want)
			}
		})
	}
}

// read returns the named runtime metrics, in order.
func read(names ...string) []uint64 {
	s := samplesOf(names...)
	metrics.Read(s)
	out := make([]uint64, len(names))
	for i := range s {
		out[i] = s[i].Value.Uint64()
	}
	return out
}

func keepGOGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(prev) })
}

// live keeps size bytes reachable until the test ends and collects, so the
// runtime's live heap figure includes them.
func live(t *testing.T, size int) {
	b := make([]byte, size)
	for i := range b {
		b[i] = 1
	}
	t.Cleanup(func() { runtime.KeepAlive(b) })
	runtime.GC()
}

func TestStepPutsTheGoalHeadroomAboveTheLiveHeap(t *testing.T) {
	keepGOGC(t)
	for _, tc := range []struct {
		name     string
		extra    int // bytes kept live besides the test binary's own
		headroom int64
	}{
		// The test binary's own live heap is well under the runtime's 4
		// MiB minimum target, which the tuner must keep from growing.
		{"small live heap", 0, 16 << 20},
		{"8 MiB live", 8 << 20, 48 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live(t, tc.extra)
			newTuner(uint64(tc.headroom)).step()
			got := read("/gc/heap/live:bytes", "/gc/heap/goal:bytes", "/gc/gogc:percent",
				"/gc/scan/stack:bytes", "/gc/scan/globals:bytes")
			room := int64(got[1]) - int64(got[0])
			// GOGC is a whole percentage: allow 1% either way. Where the
			// runtime's minimum target decides, the goal is the headroom
			// above the live heap and the roots (stacks and globals).
			roots := int64(got[3] + got[4])
			if slack := tc.headroom / 100; room > tc.headroom+roots+slack || room < tc.headroom-slack {
				t.Errorf("heap goal %d is %d above the live heap %d, want %d (+ up to %d of roots; GOGC %d)",
					got[1], room, got[0], tc.headroom, roots, got[2])
			}
		})
	}

	// A headroom below the live heap puts Go's default back.
	live(t, 8<<20)
	debug.SetGCPercent(400)
	newTuner(1 << 20).step()
	if got := read("/gc/gogc:percent")[0]; got != 100 {
		t.Errorf("with a headroom of 1 MiB over 8 live, GOGC is %d, want 100", got)
	}
}

func TestRunSetsAndRestores(t *testing.T) {
	keepGOGC(t)
	live(t, 4<<20)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { Run(ctx, 64<<20, func() bool { return true }); close(done) }()
	deadline := time.Now().Add(5 * time.Second)
	for read("/gc/gogc:percent")[0] == 100 {
		if time.Now().After(deadline) {
			t.Fatal("Run did not change GOGC within 5 s")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	if got := read("/gc/gogc:percent")[0]; got != 100 {
		t.Errorf("after Run returned, GOGC is %d, want 100", got)
	}
}

func TestRunLeavesAnOperatorsGOGC(t *testing.T) {
	keepGOGC(t)
	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50) // as the runtime would have at start
	live(t, 4<<20)
	ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
	defer cancel()
	Run(ctx, 64<<20, func() bool { return true })
	if got := read("/gc/gogc:percent")[0]; got != 50 {
		t.Errorf("with GOGC=50 in the environment, GOGC is %d after Run", got)
	}
}

func TestStepRestoresWhatSomethingElseChanged(t *testing.T) {
	keepGOGC(t)
	live(t, 4<<20)
	tu := newTuner(64 << 20)
	tu.step()
	set := read("/gc/gogc:percent")[0]
	if set == 100 {
		t.Fatal("the first step left GOGC at 100")
	}
	// Another server in the process ends its Run and puts 100 back.
	debug.SetGCPercent(100)
	tu.step()
	if got := read("/gc/gogc:percent")[0]; got != set {
		t.Errorf("after GOGC was reset to 100, the next step set %d, want %d", got, set)
	}
}

// A heap that held a burst's buffers, kept in a sync.Pool, gives the
// memory back on the releaser's next step, not when the runtime would by
// itself; a heap that has not grown since is left alone, and no release
// follows another within releaseEvery.
func TestReleaseReturnsABurstsMemory(t *testing.T) {
	keepGOGC(t)
	busy := true
	r := newReleaser(func() bool { return !busy })
	start := time.Now()
	r.floor, r.last = r.held(), start // as after a release at start
	debug.SetGCPercent(-1)            // the burst stays until the releaser runs
	var pool sync.Pool
	for range 64 {
		b := make([]byte, 1<<20)
		b[0] = 1
		pool.Put(&b)
	}
	before := r.held()
	if r.step(start.Add(releaseEvery / 2)) {
		t.Fatal("a release within releaseEvery of the last")
	}
	if r.step(start.Add(releaseEvery)) {
		t.Fatal("a release while requests are served")
	}
	busy = false
	if !r.step(start.Add(releaseEvery)) {
		t.Fatalf("the heap holds %d MiB, %d past the last release's, and was not released", before>>20, (before-r.floor)>>20)
	}
	debug.SetGCPercent(100)
	if after := r.held(); after+48<<20 > before {
		t.Errorf("the heap held %d MiB before the release and %d MiB after, want 48 MiB less at least", before>>20, after>>20)
	}
	if r.step(start.Add(3 * releaseEvery)) {
		t.Error("a release of a heap that has not grown since the last")
	}
}
