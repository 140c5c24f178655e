// Package connerr words a failed connection attempt by its cause. pgx
// reports every attempt it made: with sslmode=prefer (libpq's default) a
// server without TLS first answers "server refused TLS connection", and a
// host name that resolves to two addresses fails twice, so the reason a
// user can act on (a role that does not exist, a wrong password, nothing
// listening) comes last, after noise. Explain puts it first.
package connerr

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Error is a connection failure reduced to its cause. It unwraps to the
// error pgx returned, so errors.As still finds a *pgconn.PgError.
type Error struct {
	// Target names what was connected to: user, database and address.
	Target string
	// Cause is the attempt's reason, as the server or the network gave it.
	Cause string
	err   error
}

func (e *Error) Error() string { return "cannot connect to " + e.Target + ": " + e.Cause }

// Unwrap returns the error pgx returned.
func (e *Error) Unwrap() error { return e.err }

// Explain returns a *Error for a *pgconn.ConnectError anywhere in err's
// chain, and err itself for anything else (nil included). The cause is
// what the server said when it said anything (a PostgreSQL error, which
// ends the attempts), else the failures other than TLS being refused,
// once each.
func Explain(err error) error {
	var ce *pgconn.ConnectError
	if err == nil || !errors.As(err, &ce) {
		return err
	}
	attempts := []error{ce.Unwrap()}
	if joined, ok := ce.Unwrap().(interface{ Unwrap() []error }); ok {
		attempts = joined.Unwrap()
	}
	var causes []string
	for _, a := range attempts {
		var pgErr *pgconn.PgError
		if errors.As(a, &pgErr) {
			causes = []string{fmt.Sprintf("%s (SQLSTATE %s)", pgErr.Message, pgErr.Code)}
			break
		}
		if tlsRefused(a) && len(attempts) > 1 {
			continue
		}
		// Errors pgx joined end up in one message, a line each.
		causes = append(causes, strings.Split(attemptCause(a), "\n")...)
	}
	return &Error{Target: target(ce.Config), Cause: strings.Join(distinct(causes), "; "), err: err}
}

// distinct drops the messages another one repeats or contains, keeping
// the order.
func distinct(msgs []string) []string {
	var out []string
	for i, m := range msgs {
		m = strings.TrimSpace(m)
		covered := m == ""
		for j, other := range msgs {
			if j != i && strings.Contains(other, m) && (len(other) > len(m) || j < i) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, m)
		}
	}
	return out
}

// tlsRefused reports an attempt that failed only because the server
// offers no TLS, which sslmode=prefer follows with a plain attempt.
func tlsRefused(err error) bool {
	return strings.Contains(err.Error(), "server refused TLS connection")
}

// attemptCause is one attempt's message without the address pgx puts
// first ("127.0.0.1:5432 (localhost): "), since target names the host.
func attemptCause(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "): "); i >= 0 && strings.Contains(msg[:i], " (") {
		msg = msg[i+3:]
	}
	return msg
}

// target names the role, database and host an attempt was for.
func target(c *pgconn.Config) string {
	if c == nil {
		return "the database"
	}
	host := c.Host
	if !strings.HasPrefix(host, "/") {
		host = fmt.Sprintf("%s:%d", host, c.Port)
	} else {
		host = fmt.Sprintf("%s/.s.PGSQL.%d", host, c.Port)
	}
	db := c.Database
	if db == "" {
		db = c.User // what PostgreSQL connects to when none is named
	}
	return fmt.Sprintf("database %q as role %q at %s", db, c.User, host)
}
