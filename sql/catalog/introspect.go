package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/snapshot"
)

// Options say what to introspect.
type Options struct {
	Schemas          []string // exposed schemas, in order
	ExtraSearchPath  []string // schemas searched for base tables behind views
	GeneratorVersion string   // written into the header
	// MissingSchemas decides what exposed schemas that do not exist mean.
	// It is given them, in order, and the schemas that do exist (for a
	// suggestion); returning nil introspects the others, and the
	// snapshot's header lists only those. When MissingSchemas is nil they
	// fail the introspection.
	MissingSchemas func(missing, existing []string) error
}

// Introspect reads the catalog in one read-only REPEATABLE READ transaction
// and returns the snapshot of opts.Schemas, fingerprinted and indexed.
// Unless opts.MissingSchemas says otherwise, it fails, naming them, when
// exposed schemas do not exist: a snapshot written for later is better
// refused at once than found empty in production.
func Introspect(ctx context.Context, conn *pgx.Conn, opts Options) (*snapshot.Snapshot, error) {
	if len(opts.Schemas) == 0 {
		return nil, errors.New("introspect: no schemas to expose")
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("introspect: %w", err)
	}
	defer tx.Rollback(ctx) // read-only: there is nothing to commit
	// format_type and pg_get_expr leave out the schema of names visible on
	// the search path; an empty one makes them qualify everything outside
	// pg_catalog, so the snapshot does not depend on the caller's setting.
	if _, err := tx.Exec(ctx, "set local search_path = ''"); err != nil {
		return nil, fmt.Errorf("introspect: %w", err)
	}
	h, err := readHeader(ctx, tx, opts)
	if err != nil {
		return nil, err
	}
	c, err := readContent(ctx, tx, opts)
	if err != nil {
		return nil, fmt.Errorf("introspect: %w", err)
	}
	return snapshot.New(h, c)
}

// readHeader fills the header and checks that the exposed schemas exist.
func readHeader(ctx context.Context, tx pgx.Tx, opts Options) (snapshot.Header, error) {
	h := snapshot.Header{
		GeneratorVersion: opts.GeneratorVersion,
		CreatedAt:        time.Now().UTC(),
		Schemas:          slices.Clone(opts.Schemas),
		ExtraSearchPath:  slices.Clone(opts.ExtraSearchPath),
	}
	if h.ExtraSearchPath == nil {
		h.ExtraSearchPath = []string{}
	}
	var missing, existing []string
	err := tx.QueryRow(ctx, headerSQL, opts.Schemas).Scan(&h.PGVersion, &h.PGVersionNum, &missing, &existing)
	if err != nil {
		return h, fmt.Errorf("introspect: read server version: %w", err)
	}
	if len(missing) > 0 && opts.MissingSchemas != nil {
		if err := opts.MissingSchemas(missing, existing); err != nil {
			return h, err
		}
		h.Schemas = slices.DeleteFunc(h.Schemas, func(s string) bool { return slices.Contains(missing, s) })
		return h, nil
	}
	switch len(missing) {
	case 0:
		return h, nil
	case 1:
		return h, fmt.Errorf("introspect: exposed schema %q does not exist", missing[0])
	default:
		quoted := make([]string, len(missing))
		for i, m := range missing {
			quoted[i] = strconv.Quote(m)
		}
		return h, fmt.Errorf("introspect: exposed schemas %s do not exist", strings.Join(quoted, ", "))
	}
}

// readContent runs the catalog queries in dependency order: relations
// first, then the views' query trees, which decide which base tables
// (possibly in schemas not exposed) keys and foreign keys are read for.
func readContent(ctx context.Context, tx pgx.Tx, opts Options) (snapshot.Content, error) {
	var c snapshot.Content
	rels, err := readRelations(ctx, tx, opts.Schemas)
	if err != nil {
		return c, err
	}
	if err := readColumns(ctx, tx, opts.Schemas, rels); err != nil {
		return c, err
	}
	if err := readComputedFields(ctx, tx, opts.Schemas, opts.ExtraSearchPath, rels); err != nil {
		return c, err
	}
	views, err := readViews(ctx, tx, append(slices.Clone(opts.Schemas), opts.ExtraSearchPath...))
	if err != nil {
		return c, err
	}
	traces := traceViews(views, rels)
	oids := tracedBases(traces)
	for oid := range rels {
		oids = append(oids, oid)
	}
	slices.Sort(oids)
	oids = slices.Compact(oids) // a table can be exposed and behind a view
	keys, err := readKeys(ctx, tx, oids)
	if err != nil {
		return c, err
	}
	fks, err := readForeignKeys(ctx, tx, oids)
	if err != nil {
		return c, err
	}
	funcs, err := readFunctions(ctx, tx, opts.Schemas)
	if err != nil {
		return c, err
	}
	casts, err := readCasts(ctx, tx)
	if err != nil {
		return c, err
	}
	roles, err := readRoles(ctx, tx)
	if err != nil {
		return c, err
	}
	handlers, err := readMediaHandlers(ctx, tx, opts.Schemas)
	if err != nil {
		return c, err
	}
	domains, err := readDomains(ctx, tx, opts.Schemas, opts.ExtraSearchPath)
	if err != nil {
		return c, err
	}
	types, err := readTypes(ctx, tx, opts.Schemas)
	if err != nil {
		return c, err
	}
	applyKeys(rels, keys, traces)
	c.Relationships = normaliseRelationships(inferRelationships(rels, keys, traces, fks, funcs))
	c.Relations = make([]snapshot.Relation, 0, len(rels))
	for _, rel := range rels {
		c.Relations = append(c.Relations, rel.Relation)
	}
	normaliseRelations(c.Relations)
	c.Functions = normaliseFunctions(funcs)
	c.Casts = normaliseCasts(casts)
	c.Roles = normaliseRoles(roles)
	c.MediaHandlers = normaliseMediaHandlers(handlers)
	c.Domains = domains
	c.Types = types
	return c, nil
}
