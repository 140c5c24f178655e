package dbexec

import (
	"context"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/svc-dev/svc/server/rawsock"
)

// rawSocket is the pool's AfterNetConnect hook: a plain TCP or Unix
// session reads and writes with raw system calls (package rawsock says
// why). It runs after any TLS negotiation, so a TLS session reaches it
// wrapped and is left alone: rawsock takes only TCP and Unix sockets.
func rawSocket(_ context.Context, _ *pgconn.Config, c net.Conn) (net.Conn, error) {
	return rawsock.Wrap(c), nil
}
