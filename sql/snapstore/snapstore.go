// Package snapstore keeps schema snapshots in the database, where a fleet
// of svc-serve nodes reads them: `svc-introspect publish` stores one and
// makes it active (Publish), and a server reads the active one back with a
// single query (Load), at start and on every `reload schema`.
//
// The layout lives in one schema (DefaultSchema unless configured):
//
//	snapshots (fingerprint primary key, format_version, generator_version,
//	           schemas, body, created_at, published_at)
//	active    (one row: fingerprint -> snapshots, activated_at)
//
// body holds the snapshot file's bytes exactly as svc-introspect dump writes
// them, so the reader decodes it with the same checks as a file (format
// version, fingerprint). Servers only need USAGE on the schema and SELECT on
// both tables; the package grants nothing unless asked (GrantTo), and never
// reads the catalog on the server's side.
package snapstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/svc-dev/svc/snapshot"
)

// DefaultSchema is where snapshots are stored unless configured otherwise.
const DefaultSchema = "svc_snapshots"

// The two tables of the layout.
const (
	snapshotsTable = "snapshots"
	activeTable    = "active"
)

// ErrNotPublished is wrapped by Load's errors when there is nothing to read
// yet (no schema, no tables, or no active row): the fix is to publish, not
// to wait for the database.
var ErrNotPublished = errors.New("no snapshot published")

// Querier is what Load needs of a connection or transaction.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// tableName quotes schema.table.
func tableName(schema, table string) string { return pgx.Identifier{schema, table}.Sanitize() }

// activeQuery is the one statement a server runs per load: the active
// fingerprint, and the body unless the fingerprint is $1, the one the
// server has, so that a reload that finds nothing published since costs
// a row of 64 characters, not the snapshot (which grows with the schema),
// times the fleet's size.
func activeQuery(schema string) string {
	return fmt.Sprintf("select a.fingerprint, case when a.fingerprint = $1 then null else s.body end "+
		"from %s a join %s s on s.fingerprint = a.fingerprint",
		tableName(schema, activeTable), tableName(schema, snapshotsTable))
}

// ReadActive returns the bytes of the active snapshot in schema with one
// query. Errors say what to run: publish when nothing is there
// (wrapping ErrNotPublished), a GRANT when the role may not read it.
func ReadActive(ctx context.Context, q Querier, schema, role string) ([]byte, error) {
	body, _, err := ReadActiveUnless(ctx, q, schema, role, "")
	return body, err
}

// ReadActiveUnless is ReadActive, but reads no body when the active
// snapshot's fingerprint is known: body is then nil. fingerprint is the
// active one's.
func ReadActiveUnless(ctx context.Context, q Querier, schema, role, known string) (body []byte, fingerprint string, err error) {
	if schema == "" {
		return nil, "", errors.New("no snapshot schema named (use db, or db:<schema>)")
	}
	err = q.QueryRow(ctx, activeQuery(schema), known).Scan(&fingerprint, &body)
	if err == nil {
		return body, fingerprint, nil
	}
	return nil, "", activeError(err, schema, role)
}

// activeError words a failure to read the active snapshot.
func activeError(err error, schema, role string) error {
	publish := "run svc-introspect publish"
	if schema != DefaultSchema {
		publish += " --schema " + schema
	}
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("%w: %s has no active row; %s", ErrNotPublished, tableName(schema, activeTable), publish)
	case errors.As(err, &pgErr) && pgErr.Code == "42P01": // also when the schema is missing
		return fmt.Errorf("%w: %s; %s to create the snapshot tables in schema %s", ErrNotPublished, pgErr.Message, publish, schema)
	case errors.As(err, &pgErr) && pgErr.Code == "42501":
		return fmt.Errorf("%s: the role %s may not read the published snapshots; grant it with: %s", pgErr.Message, role, GrantSQL(schema, role))
	}
	return fmt.Errorf("read the active snapshot from %s: %w", schema, err)
}

// Load reads the active snapshot in schema and decodes it; see ReadActive.
func Load(ctx context.Context, conn *pgx.Conn, schema string) (*snapshot.Snapshot, error) {
	body, err := ReadActive(ctx, conn, schema, conn.Config().User)
	if err != nil {
		return nil, err
	}
	snap, err := snapshot.Decode(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("active snapshot in %s: %w", schema, err)
	}
	return snap, nil
}

// GrantSQL is what role needs to read the snapshots in schema, as SQL.
func GrantSQL(schema, role string) string {
	r := pgx.Identifier{role}.Sanitize()
	return fmt.Sprintf("GRANT USAGE ON SCHEMA %s TO %s; GRANT SELECT ON %s, %s TO %s;",
		pgx.Identifier{schema}.Sanitize(), r, tableName(schema, snapshotsTable), tableName(schema, activeTable), r)
}
