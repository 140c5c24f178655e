package dbexec

import (
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/svc-dev/svc/server/apierr"
)

// A connection to PostgreSQL that ends mid-request, however it ends, is a
// connection loss: 503 with Retry-After. An error PostgreSQL answered with
// keeps its own code; anything else is an internal error.
func TestDBErrorClassifies(t *testing.T) {
	t.Parallel()
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	cases := []struct {
		name   string
		err    error
		status int
		code   string
	}{
		{"unexpected EOF", io.ErrUnexpectedEOF, 503, "SVC001"},
		{"wrapped unexpected EOF", fmt.Errorf("receive message failed: %w", io.ErrUnexpectedEOF), 503, "SVC001"},
		{"EOF", io.EOF, 503, "SVC001"},
		{"reset by peer", reset, 503, "SVC001"},
		{"broken pipe", &net.OpError{Op: "write", Net: "tcp", Err: syscall.EPIPE}, 503, "SVC001"},
		{"crash of another backend", &pgconn.PgError{Severity: "FATAL", Code: "57P02", Message: "terminating connection because of crash of another server process"}, 503, "57P02"},
		{"unique violation", &pgconn.PgError{Code: "23505", Message: "duplicate key"}, 409, "23505"},
		{"something else", errors.New("result has 3 columns, expected 5"), 500, "SVCX00"},
	}
	for _, c := range cases {
		e := apierr.From(APIError(apierr.SVCNaming, c.err, false))
		if e.Status != c.status || e.Code != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.name, e.Status, e.Code, c.status, c.code)
		}
		if c.status == 503 && e.Headers["Retry-After"] == "" {
			t.Errorf("%s: no Retry-After", c.name)
		}
	}
}
