// Package procs fits the number of Ps that Go runs goroutines on
// (GOMAXPROCS) to the CPU the server uses.
//
// Go starts with one P per core. When the process keeps them mostly idle,
// each wake-up (a client's bytes, PostgreSQL's answer) also wakes an idle
// P's thread, which looks for work, finds none and sleeps again. On the
// benchmark machine, where a 100-row page keeps SVC at 0.3 of a core, that
// was 8 of its 52 us a request, and one P served more requests. Lookups
// keep SVC at 0.55 of a core even on one P, and there one P served fewer,
// presumably because every request waits while PostgreSQL or the client
// has preempted the one thread running goroutines. So Run
// measures instead of guessing: once a second it reads the CPU the process
// used, adds Ps while each is busy more than raiseShare of the time, and
// takes them away while the rest would stay busy less than lowerShare.
package procs

import (
	"context"
	"math"
	"os"
	"runtime"
	"time"
)

const (
	// every is how often the CPU used is read; one step a second keeps
	// the cost of a change (it stops the world) out of the requests' way.
	every = time.Second
	// raiseShare and lowerShare bound the share of its time each P's
	// thread may be busy: above the first the process gets more Ps,
	// below the second on fewer Ps, fewer. The gap keeps a load on the
	// boundary from moving the count back and forth. Both are read off
	// the benchmark machine (deploy/bench/RESULTS.md, twelfth session).
	raiseShare = 0.45
	lowerShare = 0.35
)

// Run fits GOMAXPROCS to the CPU the process uses until ctx ends, then
// puts back the count it found, which is also the most it sets. It does
// nothing where the GOMAXPROCS environment variable is set (the operator
// has chosen), where the process has one P, or where the CPU it uses
// cannot be read.
func Run(ctx context.Context) {
	if _, set := os.LookupEnv("GOMAXPROCS"); set {
		return
	}
	run(ctx, every)
}

// run is Run's loop, with the interval as a parameter for the tests.
func run(ctx context.Context, interval time.Duration) {
	most := runtime.GOMAXPROCS(0)
	if most < 2 {
		return
	}
	used, err := cpuTime()
	if err != nil {
		return
	}
	defer runtime.GOMAXPROCS(most)
	at := time.Now()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now := time.Now()
		nowUsed, err := cpuTime()
		if err != nil {
			return
		}
		cores := (nowUsed - used).Seconds() / now.Sub(at).Seconds()
		p := runtime.GOMAXPROCS(0)
		if next := fit(p, most, cores); next != p {
			runtime.GOMAXPROCS(next)
		}
		used, at = nowUsed, now
	}
}

// fit is the number of Ps, from 1 to most, for a process that used cores
// of CPU on p Ps: as many as keep each P's share at most raiseShare when
// p's exceeded it, as few as keep it below lowerShare when p-1 would
// have, and otherwise p.
func fit(p, most int, cores float64) int {
	switch {
	case cores > raiseShare*float64(p):
		return min(most, int(math.Ceil(cores/raiseShare)))
	case cores < lowerShare*float64(p-1):
		return max(1, int(math.Ceil(cores/lowerShare)))
	}
	return p
}
