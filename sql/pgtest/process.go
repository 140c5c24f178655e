package pgtest

import (
	"os"
	"time"
)

// StopProcess ends a child process the way every process these tests start
// wants to be ended: SIGINT first (PostgreSQL's fast shutdown, which cuts
// sessions rather than waiting on them), then, if p has not exited within
// grace, SIGKILL. exited must be closed once p has been waited for (by the
// goroutine that calls cmd.Wait); StopProcess returns only after that, so
// the caller may remove the process's directory. A process that has already
// exited is not signalled.
func StopProcess(p *os.Process, exited <-chan struct{}, grace time.Duration) {
	select {
	case <-exited:
		return
	default:
	}
	p.Signal(os.Interrupt)
	select {
	case <-exited:
	case <-time.After(grace):
		p.Kill()
		<-exited
	}
}
