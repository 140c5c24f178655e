package main

import (
	"os"
	"runtime"
	"testing"
)

// TestMemoryReadsThisProcess checks memory's reading of /proc against the
// test process itself, which holds at least the ballast it allocates.
func TestMemoryReadsThisProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("memory reads Linux's /proc/PID/status")
	}
	ballast := make([]byte, 32<<20)
	for i := range ballast {
		ballast[i] = 1 // touch every page, so that it is resident
	}
	rss, peak := memory(os.Getpid())
	runtime.KeepAlive(ballast)
	if rss < 32<<10 {
		t.Errorf("VmRSS %d KiB, want at least the 32 MiB ballast", rss)
	}
	if peak < rss {
		t.Errorf("VmHWM %d KiB below VmRSS %d KiB", peak, rss)
	}
	if rss, peak := memory(-1); rss != -1 || peak != -1 {
		t.Errorf("memory of no process: %d, %d KiB, want -1, -1", rss, peak)
	}
}

func TestMedianAndMiB(t *testing.T) {
	xs := []int{5, 1, 3}
	if got := median(xs); got != 3 {
		t.Errorf("median(5, 1, 3) = %d, want 3", got)
	}
	if xs[0] != 5 {
		t.Error("median reordered its argument")
	}
	if got := mib(-1); got != "?" {
		t.Errorf("mib(-1) = %q, want ?", got)
	}
	if got := mib(27136); got != "26.5 MiB" {
		t.Errorf("mib(27136) = %q, want 26.5 MiB", got)
	}
}
