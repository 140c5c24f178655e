package rawsock

import "syscall"

// setsockoptInt goes through socketcall, which is how 386 reaches the
// socket calls, as an ordinary system call: there is no raw form to make.
func setsockoptInt(fd uintptr, level, opt, value int) syscall.Errno {
	if err := syscall.SetsockoptInt(int(fd), level, opt, value); err != nil {
		return err.(syscall.Errno)
	}
	return 0
}
