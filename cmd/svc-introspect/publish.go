package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbconfig"
	"github.com/svc-dev/svc/server/naming"
	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/sql/snapstore"
	"github.com/urfave/cli/v2"
)

func publishCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "read db-uri, db-schemas and db-extra-search-path from this svc-serve configuration file"},
		&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "publish this snapshot file instead of a fresh dump"},
		&cli.StringFlag{Name: "schema", Value: snapstore.DefaultSchema, Usage: "schema holding the snapshot tables (created when missing); servers read it with snapshot = \"db:<schema>\""},
		&cli.StringFlag{Name: "channel", Usage: "NOTIFY channel told 'reload schema' on commit; empty notifies nobody (default: the servers' channel, from --config's db-channel and compat-names: " + apierr.SVCNaming.Channel + ", or " + apierr.PostgRESTNaming.Channel + " under compat-names = postgrest)"},
		&cli.StringSliceFlag{Name: "grant-to", Usage: "grant this role (the servers' db-uri role) USAGE on the schema and SELECT on its tables; repeatable"},
		&cli.BoolFlag{Name: "fail-on-breaking", Usage: "publish nothing, and exit with status 1, when the change from the active snapshot is breaking"},
		&cli.StringFlag{Name: "servers-db-schemas", Usage: "the schemas the servers expose (their db-schemas); publish refuses a snapshot that does not cover them, which every server would refuse (default: the db-schemas the servers resolve from --config, in-database settings included, when the snapshot is not a fresh dump, else the active snapshot's schemas)"},
	}
	for _, k := range dumpKeys {
		flags = append(flags, &cli.StringFlag{Name: k, Usage: "overrides the configuration file and SVC_* environment"})
	}
	return &cli.Command{
		Name:  "publish",
		Usage: "store a snapshot in the database, make it the active one and notify the servers",
		Description: "Stores the snapshot (a fresh dump of --db-schemas, or --file) in --schema, keyed by\n" +
			"fingerprint, points the active row at it and sends NOTIFY <channel>, 'reload schema', all in one\n" +
			"transaction. Publishing a stored fingerprint again only moves the pointer (a rollback).\n" +
			"Servers with snapshot = \"db\" read it; their role needs " + snapstore.GrantSQL(snapstore.DefaultSchema, "<role>"),
		Flags: flags,
		Action: func(c *cli.Context) error {
			if c.IsSet("file") && (c.IsSet("db-schemas") || c.IsSet("db-extra-search-path")) {
				return errors.New("publish takes --file or --db-schemas (a fresh dump), not both")
			}
			cfg, err := loadConfig(c)
			if err != nil {
				return err
			}
			var snap *snapshot.Snapshot
			if path := c.String("file"); path != "" {
				snap, err = snapshot.ReadFile(path)
			} else {
				snap, err = introspect(c.Context, cfg)
			}
			if err != nil {
				return err
			}
			channel := naming.ListenChannel(cfg)
			if c.IsSet("channel") {
				channel = c.String("channel")
			}
			opts := snapstore.Options{Schema: c.String("schema"), Channel: channel, GrantTo: c.StringSlice("grant-to")}
			known, err := servers(c)
			if err != nil {
				return err
			}
			return publish(c.Context, c.App.Writer, c.App.ErrWriter, cfg, snap, opts, c.Bool("fail-on-breaking"), known)
		},
	}
}

// servers is what the servers expose, when the command line says
// (coverage.go): --servers-db-schemas, or, unless --db-schemas names the
// schemas of a fresh dump, the db-schemas of the servers' configuration
// as they resolve it: --config and the SVC_* environment and, when its
// db-config is on, the in-database settings of its db-uri's role, which
// override the file.
func servers(c *cli.Context) (*serversSchemas, error) {
	if list := c.String("servers-db-schemas"); list != "" {
		var schemas []string
		for _, s := range strings.Split(list, ",") {
			if s = strings.TrimSpace(s); s != "" {
				schemas = append(schemas, s)
			}
		}
		return &serversSchemas{schemas: schemas, from: "--servers-db-schemas"}, nil
	}
	if !c.IsSet("config") || c.IsSet("db-schemas") {
		return nil, nil
	}
	file := c.String("config")
	sources := config.Sources{File: file, Env: os.Environ()}
	own, _, err := config.Load(sources)
	if err != nil {
		return nil, err
	}
	log := slog.New(slog.NewTextHandler(c.App.ErrWriter, &slog.HandlerOptions{ReplaceAttr: withoutTime}))
	served, err := dbconfig.Resolve(c.Context, sources, connectURI, log, true)
	if err != nil {
		return nil, fmt.Errorf("the servers' configuration (%s): %w", file, err)
	}
	if slices.Equal(served.DBSchemas, own.DBSchemas) {
		return &serversSchemas{schemas: served.DBSchemas, from: "db-schemas in " + file}, nil
	}
	role := "its db-uri's role"
	if conf, err := pgx.ParseConfig(served.DirectURI()); err == nil {
		role = conf.User
	}
	return &serversSchemas{schemas: served.DBSchemas,
		from: "db-schemas set in the database for " + role + ", which db-config in " + file + " reads"}, nil
}

// withoutTime drops the time from the warnings resolving the servers'
// configuration logs: a command's output, not a server's log.
func withoutTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// publish stores snap, refusing one the servers (known, or nil to go by
// the active snapshot) could not use, and breaking changes when
// failBreaking is set, and reports what it did.
func publish(ctx context.Context, w, errw io.Writer, cfg *config.Config, snap *snapshot.Snapshot, opts snapstore.Options,
	failBreaking bool, known *serversSchemas) error {
	conn, err := connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	opts.Check = func(active *snapshot.Snapshot) error {
		if err := uncovered(snap, active, known); err != nil {
			return err
		}
		if !failBreaking || active == nil {
			return nil
		}
		changes := snapshot.Diff(active, snap)
		if !snapshot.AnyBreaking(changes) {
			return nil
		}
		fmt.Fprintf(w, "changes from the active snapshot %.12s:\n", active.Header.Fingerprint)
		writeChanges(w, changes)
		return failOnBreaking(true, changes)
	}
	res, err := snapstore.Publish(ctx, conn, snap, opts)
	if err != nil {
		return publishError(err, conn.Config().User, opts.Schema)
	}
	if len(res.Created) > 0 {
		fmt.Fprintf(w, "created %s\n", strings.Join(res.Created, ", "))
		if len(opts.GrantTo) == 0 {
			fmt.Fprintf(errw, "svc-introspect: nothing was granted; the role servers connect as needs:\n    %s\n(or publish again with --grant-to <role>)\n",
				snapstore.GrantSQL(res.Schema, "<role>"))
		}
	}
	what := "stored and activated"
	switch {
	case res.Previous == res.Fingerprint:
		what = "already active"
	case !res.Stored:
		what = "already stored; activated"
	}
	fmt.Fprintf(w, "snapshot %.12s in %s: %s", res.Fingerprint, res.Schema, what)
	if res.Previous != "" && res.Previous != res.Fingerprint {
		fmt.Fprintf(w, " (was %.12s)", res.Previous)
	}
	for _, role := range opts.GrantTo {
		fmt.Fprintf(w, "; granted read access to %s", role)
	}
	if opts.Channel != "" {
		fmt.Fprintf(w, "; notified %s", opts.Channel)
	}
	fmt.Fprintln(w)
	return nil
}

// publishError explains a privilege the publishing role lacks. svc.conf
// names the servers' role, which may only read the snapshots, so
// `publish --config svc.conf` alone is refused, and PostgreSQL's
// "permission denied for database" does not say what would do.
func publishError(err error, role, schema string) error {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
		return err
	}
	if schema == "" {
		schema = snapstore.DefaultSchema
	}
	return fmt.Errorf("%w\npublish ran as role %q (db-uri), which may not: it creates the schema %q the first time "+
		"(CREATE on the database) and writes its tables, so it needs a role that may, such as the one migrations run as "+
		"(the servers' role only reads them: --grant-to). Pass that role's URI with --db-uri, which overrides the one in --config", err, role, schema)
}
