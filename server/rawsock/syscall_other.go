//go:build !linux

package rawsock

import "syscall"

// supported is false here, so New returns nil and read, write and writev
// are never called: the raw calls are Linux's.
const supported = false

func read(uintptr, []byte) (int, syscall.Errno) { return 0, syscall.ENOSYS }

func write(uintptr, []byte) (int, syscall.Errno) { return 0, syscall.ENOSYS }

func writev(uintptr, []syscall.Iovec) (int, syscall.Errno) { return 0, syscall.ENOSYS }

// SetsockoptInt sets an integer socket option on fd; here with the usual
// system call.
func SetsockoptInt(fd uintptr, level, opt, value int) error {
	return syscall.SetsockoptInt(int(fd), level, opt, value)
}
