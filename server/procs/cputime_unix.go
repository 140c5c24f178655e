//go:build unix

package procs

import (
	"syscall"
	"time"
)

// cpuTime is the CPU the process has used so far, in user and kernel
// mode, all its threads together.
func cpuTime() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
