//go:build !unix

package replica_test

import "testing"

// stallBackgroundWriter needs SIGSTOP; without it, the tests that leave
// the primary's WAL unflushed on purpose do not run.
func stallBackgroundWriter(t *testing.T) {
	t.Skip("stopping the primary's background writer needs SIGSTOP")
}
