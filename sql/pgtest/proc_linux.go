package pgtest

import "syscall"

// childAttr starts a program as acct (nil: as this process). A server
// (postgres, pgbouncer) gets a process group of its own, and the kernel
// stops it (SIGQUIT, PostgreSQL's immediate shutdown) if this process
// dies without calling Stop; Go sets the parent-death signal after the
// uid switch, so the switch does not clear it.
func childAttr(acct *account, server bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{}
	if acct != nil {
		a.Credential = &syscall.Credential{Uid: uint32(acct.uid), Gid: uint32(acct.gid)}
	}
	if server {
		a.Pdeathsig = syscall.SIGQUIT
		a.Setpgid = true
	}
	return a
}

// processGone reports whether no process has the id pid.
func processGone(pid int) bool { return syscall.Kill(pid, 0) == syscall.ESRCH }
