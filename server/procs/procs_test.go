package procs

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// The tests change the process's GOMAXPROCS, so none runs in parallel.

func TestFit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		p, most int
		cores   float64
		want    int
	}{
		{"idle on two Ps: one", 2, 2, 0.01, 1},
		{"a 100-row page's load on two Ps: one", 2, 2, 0.30, 1},
		{"lookups' load on two Ps: stays", 2, 2, 0.72, 2},
		{"lookups' load on one P: two", 1, 2, 0.55, 2},
		{"a page's load on one P: stays", 1, 2, 0.27, 1},
		{"between the shares on one P: stays", 1, 2, 0.40, 1},
		{"a full core on one P, never past most", 1, 2, 1.0, 2},
		{"a surge on one P of sixteen: as many as it needs", 1, 16, 1.0, 3},
		{"all cores busy at most: stays", 16, 16, 15.5, 16},
		{"light load on sixteen: as few as it needs", 16, 16, 0.8, 3},
		{"idle on one P: stays", 1, 16, 0, 1},
		{"within the band on eight: stays", 8, 16, 3.0, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fit(tc.p, tc.most, tc.cores); got != tc.want {
				t.Errorf("fit(%d, %d, %.2f) = %d, want %d", tc.p, tc.most, tc.cores, got, tc.want)
			}
		})
	}
}

// TestRunFollowsLoad runs the loop on short intervals: an idle process
// drops to one P, a busy one gets its Ps back, and the count found at the
// start is put back when the loop ends.
func TestRunFollowsLoad(t *testing.T) {
	most := runtime.GOMAXPROCS(0)
	if most < 2 {
		t.Skipf("GOMAXPROCS is %d here; the loop only acts with two or more", most)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		run(ctx, 50*time.Millisecond)
		close(done)
	}()
	waitFor := func(what string, ok func(int) bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !ok(runtime.GOMAXPROCS(0)) {
			if time.Now().After(deadline) {
				cancel()
				t.Fatalf("%s: GOMAXPROCS still %d after 10 s", what, runtime.GOMAXPROCS(0))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor("idle", func(p int) bool { return p == 1 })

	var stop atomic.Bool
	defer stop.Store(true) // also when a wait fails
	for range most {
		go func() {
			for !stop.Load() {
			}
		}()
	}
	waitFor("busy", func(p int) bool { return p > 1 })
	stop.Store(true)
	waitFor("idle again", func(p int) bool { return p == 1 })

	cancel()
	<-done
	if got := runtime.GOMAXPROCS(0); got != most {
		t.Errorf("GOMAXPROCS after the loop ended = %d, want the %d it found", got, most)
	}
}
