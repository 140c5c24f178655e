package reload

import (
	"context"
	"errors"

	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/sql/snapstore"
)

// DBSource reads the snapshot `svc-introspect publish` made active in
// Schema (configured as snapshot = "db" or "db:<schema>"). Each load is one
// query over a connection of its own, like LiveSource's, and no catalog
// query: a fleet reloads together on the publisher's NOTIFY at the cost of
// one row read per node. The role needs USAGE on Schema and SELECT on its
// tables (snapstore.GrantSQL).
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

// Describe names the schema read.
func (d DBSource) Describe() string { return "database schema " + d.Schema }
