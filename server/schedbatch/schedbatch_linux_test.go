package schedbatch

import (
	"runtime"
	"sync"
	"testing"
)

// TestApply moves the test process's threads to SCHED_BATCH, then checks
// that threads the runtime starts afterwards inherit it and that a second
// Apply leaves the policy it finds alone.
func TestApply(t *testing.T) {
	if p, err := policyOf(0); err != nil || p != schedOther {
		t.Skipf("the test process runs under policy %d (%v), not the default this test starts from", p, err)
	}
	got, err := Apply()
	if err != nil || got != Applied {
		t.Fatalf("Apply() = %v, %v; want Applied", got, err)
	}
	checkAllBatch(t)

	// Goroutines locked to their threads while all are held need a thread
	// each, so the runtime starts new ones.
	before := threads(t)
	var started, done sync.WaitGroup
	release := make(chan struct{})
	for range len(before) + 4 {
		started.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			started.Done()
			<-release
		}()
	}
	started.Wait()
	if after := threads(t); len(after) <= len(before) {
		t.Fatalf("%d threads after locking more goroutines than threads, %d before", len(after), len(before))
	}
	checkAllBatch(t)
	close(release)
	done.Wait()

	if got, err := Apply(); err != nil || got != Chosen {
		t.Errorf("second Apply() = %v, %v; want Chosen", got, err)
	}
}

func checkAllBatch(t *testing.T) {
	t.Helper()
	for _, tid := range threads(t) {
		p, err := policyOf(tid)
		if err != nil {
			continue // exited since the listing
		}
		if p != schedBatch {
			t.Errorf("thread %d runs under policy %d, want SCHED_BATCH (%d)", tid, p, schedBatch)
		}
	}
}

func threads(t *testing.T) []int {
	t.Helper()
	tids, err := threadIDs()
	if err != nil {
		t.Fatal(err)
	}
	return tids
}
