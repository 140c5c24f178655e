package schedbatch

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// The policies of sched(7).
const (
	schedOther = 0
	schedBatch = 3
)

// maxPasses bounds the passes over the process's threads. A thread the Go
// runtime starts during a pass inherits the policy of the thread that
// started it, which the pass may not have reached yet; the next pass
// finds it. Two passes are enough unless threads keep appearing.
const maxPasses = 5

// Apply moves every thread of the process to SCHED_BATCH, unless the
// process runs under a policy other than the default already. Threads
// started afterwards inherit the policy.
func Apply() (Outcome, error) {
	policy, err := policyOf(0)
	if err != nil {
		return 0, err
	}
	if policy != schedOther {
		return Chosen, nil
	}
	for range maxPasses {
		moved, err := batchAll()
		if err != nil {
			return 0, err
		}
		if moved == 0 {
			return Applied, nil
		}
	}
	return 0, fmt.Errorf("threads kept appearing under the default policy after %d passes", maxPasses)
}

// batchAll moves the process's threads still under the default policy to
// SCHED_BATCH and says how many it moved.
func batchAll() (int, error) {
	tids, err := threadIDs()
	if err != nil {
		return 0, err
	}
	moved := 0
	for _, tid := range tids {
		policy, err := policyOf(tid)
		if err == syscall.ESRCH {
			continue // the thread has exited
		}
		if err != nil {
			return 0, err
		}
		if policy != schedOther {
			continue
		}
		switch err := setBatch(tid); err {
		case nil:
			moved++
		case syscall.ESRCH:
			// The thread exited between the two calls.
		default:
			return 0, fmt.Errorf("thread %d: %w", tid, err)
		}
	}
	return moved, nil
}

// threadIDs lists the process's threads now running.
func threadIDs() ([]int, error) {
	entries, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	tids := make([]int, 0, len(entries))
	for _, e := range entries {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// policyOf is sched_getscheduler(2) for thread tid, 0 for the caller.
func policyOf(tid int) (int, error) {
	policy, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_GETSCHEDULER, uintptr(tid), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	// The reset-on-fork flag may be or'ed into the policy.
	return int(policy) &^ 0x40000000, nil
}

// setBatch is sched_setscheduler(2) to SCHED_BATCH, whose only priority is
// 0; any process may choose it for its own threads.
func setBatch(tid int) error {
	var param struct{ priority int32 }
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(tid), schedBatch, uintptr(unsafe.Pointer(&param)))
	if errno != 0 {
		return errno
	}
	return nil
}
