//go:build unix

package server_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the test process has used, user and system:
// the server's, in-process, with the benchmark client's.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
