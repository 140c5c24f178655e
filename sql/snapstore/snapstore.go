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

// activeQuery is the one statement a server runs per load.
func activeQuery(schema string) string {
	return fmt.Sprintf("select s.body from %s a join %s s on s.fingerprint = a.fingerprint",
		tableName(schema, activeTable), tableName(schema, snapshotsTable))
}

// ReadActive returns the bytes of the active snapshot in schema with one
// query. Errors say what to run: publish when nothing is there
// (wrapping ErrNotPublished), a GRANT when the role may not read it.
func ReadActive(ctx context.Context, q Querier, schema, role string) ([]byte, error) {
	if schema == "" {
		return nil, errors.New("no snapshot schema named (use db, or db:<schema>)")
	}
	var body []byte
	err := q.QueryRow(ctx, activeQuery(schema)).Scan(&body)
	if err == nil {
		return body, nil
	}
	publish := "run svc-introspect publish"
	if schema != DefaultSchema {
		publish += " --schema " + schema
	}
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, fmt.Errorf("%w: %s has no active row; %s", ErrNotPublished, tableName(schema, activeTable), publish)
	case errors.As(err, &pgErr) && pgErr.Code == "42P01": // also when the schema is missing
		return nil, fmt.Errorf("%w: %s; %s to create the snapshot tables in schema %s", ErrNotPublished, pgErr.Message, publish, schema)
	case errors.As(err, &pgErr) && pgErr.Code == "42501":
		return nil, fmt.Errorf("%s: the role %s may not read the published snapshots; grant it with: %s", pgErr.Message, role, GrantSQL(schema, role))
	}
	return nil, fmt.Errorf("read the active snapshot from %s: %w", schema, err)
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
