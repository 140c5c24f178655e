//go:build unix

package replica_test

import (
	"context"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
)

// stallBackgroundWriter stops the primary's background writer until the
// test ends. Once other WAL has been written, it logs a standby snapshot
// (RUNNING_XACTS) at most every 15 s and has the WAL writer flush it and
// all before it; stopped, it cannot flush by chance the tail a test leaves
// unflushed on purpose, and the test cannot pass for that reason.
func stallBackgroundWriter(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, fixture.superURI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var pid int
	if err := conn.QueryRow(ctx, "select pid from pg_stat_activity where backend_type = 'background writer'").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Signal(syscall.SIGCONT); err != nil {
			t.Error("background writer not resumed:", err)
		}
	})
}
