package dbexec

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// preparedMaxBytes bounds the bind values runPrepared sends. It writes the
// whole pipeline before reading anything, which is safe while what it
// writes fits in the sockets' buffers (PostgreSQL's receive buffer alone
// starts at 128 KiB on Linux). Past that, PostgreSQL could fill its own
// socket with the first statements' results while SVC is still writing,
// and each side would wait for the other. pgx's pipeline, which reads
// while it writes, takes the larger requests (bulk writes).
const preparedMaxBytes = 32 << 10

// runPrepared runs the request transaction when every statement in it is
// already prepared on the connection and it is the pipeline's implicit
// transaction: the steady state of every request shape seen before. It
// speaks the protocol through pgx's frontend itself, a Bind and an Execute
// a statement and one Sync, and reads the results in order, without pgx's
// pipeline bookkeeping (a list of expected results, some 17 allocations a
// request), its context watch or the timer its flush arms. It leaves the
// connection as pgx's pipeline would: in sync and idle, or closed, so the
// pool drops it on release. Like the pipeline, it reads until the server
// has answered, whether or not the client is still there: the request's
// clientWatch (abandon.go) has PostgreSQL cancel the statements.
//
// calls are named by allPrepared.
func runPrepared(pc *pgconn.PgConn, calls []call) error {
	fe := pc.Frontend()
	var bind pgproto3.Bind
	for _, c := range calls {
		bind.PreparedStatement = c.name
		bind.Parameters = c.args
		fe.SendBind(&bind)
		fe.SendExecute(&pgproto3.Execute{})
	}
	fe.SendSync(&pgproto3.Sync{})
	if err := fe.Flush(); err != nil {
		discard(pc)
		return err
	}

	var pgErr, rowErr error
	result := 0 // the call whose results are arriving
	for {
		msg, err := fe.Receive()
		if err != nil {
			discard(pc)
			if pgErr != nil {
				return pgErr // a FATAL error, then the server closed
			}
			return err
		}
		switch msg := msg.(type) {
		case *pgproto3.BindComplete:
		case *pgproto3.DataRow:
			if row := calls[result].row; row != nil && rowErr == nil {
				rowErr = row(msg.Values)
				clientGone(pc, rowErr)
			}
		case *pgproto3.CommandComplete, *pgproto3.EmptyQueryResponse:
			result++
		case *pgproto3.ErrorResponse:
			// The server skips the rest up to the Sync, and the implicit
			// transaction rolls back.
			if pgErr == nil {
				pgErr = pgconn.ErrorResponseToPgError(msg)
			}
		case *pgproto3.NoticeResponse, *pgproto3.ParameterStatus, *pgproto3.NotificationResponse:
			// pgx's pool sessions have no handler for these either; a
			// parameter a statement changed (Prefer: timezone) is set back
			// at commit.
		case *pgproto3.ReadyForQuery:
			if msg.TxStatus != 'I' {
				// An implicit transaction ends with the Sync; a session
				// still in one is not what the pool may hand out.
				discard(pc)
				return fmt.Errorf("transaction status %q after the request's sync", msg.TxStatus)
			}
			if pgErr != nil {
				return pgErr
			}
			return rowErr
		default:
			discard(pc)
			return fmt.Errorf("unexpected %T in a request's results", msg)
		}
	}
}

// preparedPathTakes reports whether runPrepared may run calls, a request
// in the pipeline's implicit transaction, on pc: their bind values are
// within preparedMaxBytes, and every statement is prepared there (which
// names each call's statement) with none waiting to be deallocated.
func preparedPathTakes(s *sessionState, calls []call) bool {
	n := 0
	for _, c := range calls {
		for _, a := range c.args {
			n += len(a)
		}
	}
	return n <= preparedMaxBytes && s.stmts().allPrepared(calls)
}

// discard closes a connection whose protocol state is lost. The pool
// destroys a closed connection when it is released.
func discard(pc *pgconn.PgConn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	pc.Close(ctx)
}
