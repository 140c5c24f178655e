package reload

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/sql/connerr"
	"github.com/svc-dev/svc/sql/snapstore"
)

// DBSource reads the snapshot `svc-introspect publish` made active in
// Schema (configured as snapshot = "db" or "db:<schema>"), with one query
// and no catalog query: a fleet reloads together on the publisher's
// NOTIFY at the cost of one row read per node. The role needs USAGE on
// Schema and SELECT on its tables (snapstore.GrantSQL).
//
// What a reload costs PostgreSQL is what a fleet multiplies by its size
// on every notification, which any role that can connect may send. So a
// server that has a snapshot reads it on a pooled session (LoadFrom),
// opening none, and only the fingerprint when it is the one in force;
// Load, a connection of its own, is for the first load and for servers
// without a pool.
type DBSource struct {
	URI    string
	Schema string
}

// Load reads and decodes the active snapshot. When nothing is published
// the error wraps snapstore.ErrNotPublished and says what to run.
func (d DBSource) Load(ctx context.Context) (*snapshot.Snapshot, error) {
	if d.Schema == "" {
		return nil, errors.New(`snapshot = "db:" names no schema; use "db" (schema ` + snapstore.DefaultSchema + `) or "db:<schema>"`)
	}
	conn, err := dbexec.Connect(ctx, d.URI)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return snapstore.Load(ctx, conn, d.Schema)
}

// LoadFrom is Load on a session of pool, returning current itself when
// the active snapshot is still the one it has (its body is then not
// read). With no current snapshot it is Load: the first load must not
// wait on a pool that cannot reach the database yet.
func (d DBSource) LoadFrom(ctx context.Context, pool *pgxpool.Pool, current *snapshot.Snapshot) (*snapshot.Snapshot, error) {
	if current == nil || d.Schema == "" {
		return d.Load(ctx)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, connerr.Explain(err)
	}
	defer conn.Release()
	body, fp, err := snapstore.ReadActiveUnless(ctx, conn, d.Schema, conn.Conn().Config().User, current.Header.Fingerprint)
	if err != nil {
		return nil, err
	}
	if body == nil && fp == current.Header.Fingerprint {
		return current, nil
	}
	snap, err := snapshot.Decode(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("active snapshot in %s: %w", d.Schema, err)
	}
	return snap, nil
}

// Describe names the schema read.
func (d DBSource) Describe() string { return "database schema " + d.Schema }
