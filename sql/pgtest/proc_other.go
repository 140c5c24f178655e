//go:build !unix

package pgtest

import (
	"os"
	"syscall"
)

// childAttr starts a program as this process's user: acct is always nil
// here, where there is no root to switch from. Nothing stops a server
// whose test process died without calling Stop.
func childAttr(*account, bool) *syscall.SysProcAttr { return nil }

// processGone reports whether no process has the id pid: on Windows,
// finding a process opens it, which fails once it has exited.
func processGone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	p.Release()
	return false
}
