//go:build unix

package main

import (
	"syscall"
	"testing"
)

// TestSIGTERMDrainsAndExits: SIGTERM makes svc-serve say that it stops
// accepting connections and finishes the requests in flight, naming the
// signal, then that it stopped, and return without an error.
func TestSIGTERMDrainsAndExits(t *testing.T) {
	var logs logBuffer
	_, stop := startLogging(t, nil, &logs)
	// serve diverts SIGTERM from the moment it starts, so this stops it
	// rather than the test binary.
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	logs.waitFor(t, `level=NOTICE msg="stopping: no new connections; finishing the requests in flight" reason="terminated signal received" within=10s\n.*level=NOTICE msg=stopped\n`)
	if err := stop(); err != nil {
		t.Errorf("serve returned %v after SIGTERM", err)
	}
}
