//go:build !unix

package main

import (
	"errors"
	"syscall"
)

// reusePort refuses server-reuseport where there is no SO_REUSEPORT.
func reusePort(string, string, syscall.RawConn) error {
	return errors.New("server-reuseport: SO_REUSEPORT is not available on this system")
}
