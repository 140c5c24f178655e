package dbexec

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/replica"
)

// Tx is the per-request transaction context.
type Tx struct {
	ReadOnly   bool
	Role       string
	SearchPath string
	Method     string
	Path       string
	// Claims, Headers and Cookies are JSON objects for request.jwt.claims,
	// request.headers and request.cookies.
	Claims, Headers, Cookies string
	// Explain marks a transaction that runs EXPLAIN for the plan media
	// type: JIT is kept off by settings its output does not list.
	Explain bool
	// Settings are set_config name/value pairs applied after the role
	// switch: the role's own settings, then app.settings.*.
	Settings [][2]string
	// Isolation is the role's default_transaction_isolation, or "" for
	// read committed.
	Isolation string
	// PreRequest is db-pre-request's call, run before the steps; nil for none.
	PreRequest *query.Statement
	// Authenticated decides 401 versus 403 for privilege errors.
	Authenticated bool
	// Rollback ends the transaction with a rollback (db-tx-end, Prefer: tx).
	Rollback bool
	// Timezone is the Prefer: timezone to set for the transaction, or "".
	Timezone string
	// Check, when set, runs on the results before the transaction ends;
	// an error rolls back and is the request's answer. The transaction's
	// end then takes a second round trip.
	Check func() error
	// Reads marks a request that only reads, which a replica may serve;
	// Replica is the one it runs on, nil for the primary.
	Reads   bool
	Replica *replica.Replica
	// Mark, when set, reads the primary's WAL position after the commit,
	// in the round trip that commits: the transaction is explicit, and
	// its steps end with the commit and the mark unless Check must see
	// the results first.
	Mark *Step
	// OutsideEffects marks a request that may act outside its transaction
	// (it calls a VOLATILE function): a rollback does not undo all it did,
	// so it is never run twice (afterStale).
	OutsideEffects bool
	// Rewind, when set, is called before the steps run again on another
	// session (a stale one's rerun): it drops what their rows handed over
	// so far, and returns false when some of it has left already (an
	// answer streamed to its client), and the request then is not run
	// again.
	Rewind func() bool
	// Next, when set, gives the statements that run after the steps, in
	// the same transaction, one round trip each, until it returns false:
	// the batches of a body read while its transaction runs (JSON Lines).
	// An error it returns rolls back and is the request's answer, as
	// Check's. The transaction is explicit.
	Next func() (Step, bool, error)
}

// Result is what every main statement returns (see query's result columns).
type Result struct {
	Total     *int64
	PageCount int64
	// Body is nil for NULL; it lives in buf, a pooled buffer the request
	// gives back with Release once the body is written.
	Body    []byte
	buf     *[]byte
	Headers *string
	Status  *string
}

// Release gives the body's buffer back to the pool; res.Body is then gone.
func (res *Result) Release() {
	giveBody(res.buf)
	res.buf, res.Body = nil, nil
}

// AppendBody appends p to res.Body, in a pooled buffer (see Release): a
// body joined from rows as they arrive.
func (res *Result) AppendBody(p []byte) {
	if res.buf == nil {
		res.buf = takeBody()
	}
	*res.buf = append(*res.buf, p...)
	res.Body = *res.buf
}

// AppendBodyString is AppendBody of a string.
func (res *Result) AppendBodyString(s string) {
	if res.buf == nil {
		res.buf = takeBody()
	}
	*res.buf = append(*res.buf, s...)
	res.Body = *res.buf
}

// ResetBody empties res.Body, keeping its buffer for more.
func (res *Result) ResetBody() {
	if res.buf != nil {
		*res.buf = (*res.buf)[:0]
		res.Body = *res.buf
	}
}

// Step is one statement of a request transaction and what to do with each
// row it returns.
type Step struct {
	Stmt query.Statement
	Row  RowFunc
}

// RowFunc receives one result row, each value in PostgreSQL's text format
// and nil for NULL. The values are only valid during the call.
type RowFunc func(values [][]byte) error

// Scan reads the main statement's single row into res, the body into a
// pooled buffer (see Release). A caller that keeps res for many requests
// may keep res.Scan too, made once.
func (res *Result) Scan(values [][]byte) error {
	dest := [5]any{0: &res.Total, 1: &res.PageCount, 3: &res.Headers, 4: &res.Status}
	if err := scanRow(values, dest[:]); err != nil {
		return err
	}
	if values[2] != nil { // the body, left nil in dest
		if res.buf == nil {
			res.buf = takeBody()
		}
		*res.buf = append((*res.buf)[:0], values[2]...)
		res.Body = *res.buf
	}
	return nil
}

// ScanOne reads a one-row result into dest: *int64, **int64, *string,
// **string or *[]byte (copied, as the row's memory is reused); a nil dest
// skips its column.
func ScanOne(dest ...any) RowFunc {
	return func(values [][]byte) error { return scanRow(values, dest) }
}

// scanRow reads values into dest, one each, skipping a nil dest (a
// column its caller reads itself).
func scanRow(values [][]byte, dest []any) error {
	if len(values) != len(dest) {
		return fmt.Errorf("result has %d columns, expected %d", len(values), len(dest))
	}
	for i, v := range values {
		if dest[i] == nil {
			continue
		}
		if err := scanText(v, dest[i]); err != nil {
			return fmt.Errorf("result column %d: %w", i+1, err)
		}
	}
	return nil
}

func scanText(v []byte, dest any) error {
	switch d := dest.(type) {
	case *[]byte:
		*d = bytes.Clone(v)
	case *string:
		*d = string(v)
	case **string:
		*d = nil
		if v != nil {
			str := string(v)
			*d = &str
		}
	case *int64, **int64:
		if v == nil {
			if d, ok := d.(**int64); ok {
				*d = nil
				return nil
			}
			return errors.New("unexpected NULL")
		}
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return err
		}
		if d, ok := d.(**int64); ok {
			*d = &n
		} else {
			*dest.(*int64) = n
		}
	default:
		return fmt.Errorf("cannot scan into %T", dest)
	}
	return nil
}
