//go:build !unix

package procs

import (
	"errors"
	"time"
)

// cpuTime cannot be read here, so Run leaves GOMAXPROCS alone.
func cpuTime() (time.Duration, error) {
	return 0, errors.ErrUnsupported
}
