//go:build unix

package main

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// reusePort is a net.ListenConfig Control function setting SO_REUSEPORT.
func reusePort(_, _ string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
	})
	if err != nil {
		return err
	}
	return serr
}
