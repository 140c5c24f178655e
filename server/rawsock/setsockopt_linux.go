//go:build linux && !386

package rawsock

import (
	"syscall"
	"unsafe"
)

func setsockoptInt(fd uintptr, level, opt, value int) syscall.Errno {
	v := int32(value) // the kernel reads an int
	_, _, e := syscall.RawSyscall6(syscall.SYS_SETSOCKOPT, fd, uintptr(level), uintptr(opt), uintptr(unsafe.Pointer(&v)), unsafe.Sizeof(v), 0)
	return e
}
