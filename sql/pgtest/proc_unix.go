//go:build unix && !linux

package pgtest

import "syscall"

// childAttr starts a program as acct (nil: as this process); a server
// (postgres, pgbouncer) gets a process group of its own. These systems
// have no parent-death signal: a server whose test process died without
// calling Stop runs on until stopped by hand.
func childAttr(acct *account, server bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: server}
	if acct != nil {
		a.Credential = &syscall.Credential{Uid: uint32(acct.uid), Gid: uint32(acct.gid)}
	}
	return a
}

// processGone reports whether no process has the id pid.
func processGone(pid int) bool { return syscall.Kill(pid, 0) == syscall.ESRCH }
