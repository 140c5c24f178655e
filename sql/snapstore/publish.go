package snapstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/snapshot"
)

// ReloadPayload is the notification that makes servers reload their snapshot.
const ReloadPayload = "reload schema"

// Options tune Publish.
type Options struct {
	// Schema holds the tables; "" means DefaultSchema.
	Schema string
	// Channel is notified with ReloadPayload once the snapshot is active;
	// "" notifies nobody.
	Channel string
	// GrantTo are roles given what servers need to read the snapshots
	// (GrantSQL). Publish grants nothing else, and nothing by default.
	GrantTo []string
	// Check, when set, sees the snapshot active before this one (nil for
	// the first) inside the publishing transaction, after the lock and
	// before anything is written: an error aborts the publication.
	Check func(active *snapshot.Snapshot) error
}

// Result says what Publish did.
type Result struct {
	Schema      string
	Fingerprint string
	// Previous is the fingerprint active before, "" for none.
	Previous string
	// Stored is false when the fingerprint was stored already (publishing
	// it again only moves the pointer).
	Stored bool
	// Created lists the schema and tables Publish had to create.
	Created []string
}

// Publish stores snap in the database conn points at and makes it the
// active snapshot, in one transaction that also sends the reload
// notification, so a listener that hears it reads committed data. The
// schema and tables are created when missing: that needs CREATE on the
// database (or schema), which the publishing role has and servers should
// not. Concurrent publications queue on an advisory lock.
func Publish(ctx context.Context, conn *pgx.Conn, snap *snapshot.Snapshot, opts Options) (*Result, error) {
	if opts.Schema == "" {
		opts.Schema = DefaultSchema
	}
	var body bytes.Buffer
	if err := snapshot.Encode(&body, snap); err != nil {
		return nil, err
	}
	res := &Result{Schema: opts.Schema, Fingerprint: snap.Header.Fingerprint}
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "select pg_advisory_xact_lock(hashtext('svc publish ' || $1::text))", opts.Schema); err != nil {
			return err
		}
		if err := ensureLayout(ctx, tx, opts.Schema, res); err != nil {
			return err
		}
		if err := check(ctx, tx, opts, res); err != nil {
			return err
		}
		return store(ctx, tx, snap, body.Bytes(), opts, res)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// check reads the active snapshot's fingerprint into res and shows the
// snapshot to opts.Check.
func check(ctx context.Context, tx pgx.Tx, opts Options, res *Result) error {
	var body []byte
	err := tx.QueryRow(ctx, fmt.Sprintf("select a.fingerprint, s.body from %s a join %s s on s.fingerprint = a.fingerprint",
		tableName(opts.Schema, activeTable), tableName(opts.Schema, snapshotsTable))).Scan(&res.Previous, &body)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("read the active snapshot: %w", err)
	}
	if opts.Check == nil {
		return nil
	}
	var active *snapshot.Snapshot
	if body != nil {
		if active, err = snapshot.Decode(bytes.NewReader(body)); err != nil {
			return fmt.Errorf("the active snapshot %.12s cannot be read for comparison: %w", res.Previous, err)
		}
	}
	return opts.Check(active)
}

// store writes the snapshot row, moves the pointer, grants and notifies.
func store(ctx context.Context, tx pgx.Tx, snap *snapshot.Snapshot, body []byte, opts Options, res *Result) error {
	h := snap.Header
	tag, err := tx.Exec(ctx, fmt.Sprintf(`insert into %s
		(fingerprint, format_version, generator_version, schemas, body, created_at)
		values ($1, $2, $3, $4, $5, $6) on conflict (fingerprint) do nothing`, tableName(opts.Schema, snapshotsTable)),
		h.Fingerprint, snapshot.FormatVersion, h.GeneratorVersion, h.Schemas, body, h.CreatedAt)
	if err != nil {
		return fmt.Errorf("store the snapshot: %w", err)
	}
	res.Stored = tag.RowsAffected() == 1
	_, err = tx.Exec(ctx, fmt.Sprintf(`insert into %s (fingerprint) values ($1)
		on conflict (singleton) do update set fingerprint = excluded.fingerprint, activated_at = now()`,
		tableName(opts.Schema, activeTable)), h.Fingerprint)
	if err != nil {
		return fmt.Errorf("activate the snapshot: %w", err)
	}
	for _, role := range opts.GrantTo {
		if _, err := tx.Exec(ctx, GrantSQL(opts.Schema, role)); err != nil {
			return fmt.Errorf("grant %s read access: %w", role, err)
		}
	}
	if opts.Channel != "" {
		// Delivered at commit, so listeners never read ahead of the data.
		if _, err := tx.Exec(ctx, "select pg_notify($1, $2)", opts.Channel, ReloadPayload); err != nil {
			return fmt.Errorf("notify %s: %w", opts.Channel, err)
		}
	}
	return nil
}

// ensureLayout creates the schema and tables that are missing. It looks
// first rather than using IF NOT EXISTS, which checks the CREATE privilege
// even when there is nothing to create.
func ensureLayout(ctx context.Context, tx pgx.Tx, schema string, res *Result) error {
	var hasSchema, hasSnapshots, hasActive bool
	err := tx.QueryRow(ctx, `select to_regnamespace(quote_ident($1)) is not null,
		to_regclass(format('%I.%I', $1, $2::text)) is not null, to_regclass(format('%I.%I', $1, $3::text)) is not null`,
		schema, snapshotsTable, activeTable).Scan(&hasSchema, &hasSnapshots, &hasActive)
	if err != nil {
		return err
	}
	steps := []struct {
		exists bool
		name   string
		sql    string
	}{
		{hasSchema, "schema " + pgx.Identifier{schema}.Sanitize(), "create schema " + pgx.Identifier{schema}.Sanitize()},
		{hasSnapshots, tableName(schema, snapshotsTable), `create table ` + tableName(schema, snapshotsTable) + ` (
			fingerprint text primary key,
			format_version integer not null,
			generator_version text not null,
			schemas text[] not null,
			body bytea not null,
			created_at timestamptz not null,
			published_at timestamptz not null default now())`},
		{hasActive, tableName(schema, activeTable), `create table ` + tableName(schema, activeTable) + ` (
			singleton boolean primary key default true check (singleton),
			fingerprint text not null references ` + tableName(schema, snapshotsTable) + `,
			activated_at timestamptz not null default now())`},
	}
	for _, s := range steps {
		if s.exists {
			continue
		}
		if _, err := tx.Exec(ctx, s.sql); err != nil {
			return fmt.Errorf("create %s: %w", s.name, err)
		}
		res.Created = append(res.Created, s.name)
	}
	if !hasSnapshots {
		comment := "SVC schema snapshots; written by svc-introspect publish, read by svc-serve (snapshot = db)"
		if _, err := tx.Exec(ctx, "comment on table "+tableName(schema, snapshotsTable)+" is '"+comment+"'"); err != nil {
			return err
		}
	}
	return nil
}
