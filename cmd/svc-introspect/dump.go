package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/sql/catalog"
	"github.com/svc-dev/svc/sql/snapstore"
	"github.com/urfave/cli/v2"
)

// dumpKeys are the configuration keys dump and publish read; the rest of a server's
// configuration file is ignored here.
var dumpKeys = []string{"db-uri", "db-schemas", "db-extra-search-path"}

func dumpCommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "read db-uri, db-schemas, db-extra-search-path and snapshot (the file to write) from this svc-serve configuration file"},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "snapshot file to write (atomically)",
			DefaultText: "the configuration's snapshot file, which svc-serve reads, else " + defaultOutput},
	}
	for _, k := range dumpKeys {
		flags = append(flags, &cli.StringFlag{Name: k, Usage: "overrides the configuration file and SVC_* environment"})
	}
	return &cli.Command{
		Name:  "dump",
		Usage: "introspect a database and write its schema snapshot",
		Flags: flags,
		Action: func(c *cli.Context) error {
			cfg, err := loadConfig(c)
			if err != nil {
				return err
			}
			path, err := dumpTarget(c, cfg)
			if err != nil {
				return err
			}
			return dump(c.Context, c.App.Writer, cfg, path)
		},
	}
}

// defaultOutput is the file dump writes, in the working directory, when
// neither -o nor the configuration names one.
const defaultOutput = "snapshot.msgpack"

// dumpTarget is the file dump writes: -o, else the snapshot setting
// svc-serve reads (a relative path in the config file is relative to that
// file), so that the servers' next reload loads what was dumped rather
// than the file before, else defaultOutput, saying so on stderr. A
// snapshot the servers read from the database has no file to write:
// publish stores it there.
func dumpTarget(c *cli.Context, cfg *config.Config) (string, error) {
	if c.IsSet("output") {
		return c.String("output"), nil
	}
	if schema, ok := snapstore.SettingSchema(cfg.Snapshot); ok {
		run := "svc-introspect publish"
		if file := c.String("config"); file != "" {
			run += " --config " + file
		}
		if schema != snapstore.DefaultSchema {
			run += " --schema " + schema
		}
		return "", fmt.Errorf("snapshot = %q: the servers read the snapshot published in the database (schema %s), not a file; "+
			"run %s to dump and publish it, or give -o FILE to write a file", cfg.Snapshot, schema, run)
	}
	if cfg.Snapshot != "" {
		return cfg.Snapshot, nil
	}
	where, err := filepath.Abs(defaultOutput)
	if err != nil {
		where = defaultOutput
	}
	fmt.Fprintf(c.App.ErrWriter, "svc-introspect: no -o, and the configuration names no snapshot file; writing %s\n", where)
	return defaultOutput, nil
}

// loadConfig reads the dumpKeys from --config, SVC_* variables and flags,
// as svc-serve reads them: PGRST_* variables too under compat-names =
// postgrest, which they choose when nothing sets it. Its warnings go to
// stderr as svc-serve's do, since one may say which naming was chosen or
// why a setting the dump needs was not read.
func loadConfig(c *cli.Context) (*config.Config, error) {
	set := map[string]string{}
	for _, k := range dumpKeys {
		if c.IsSet(k) {
			set[k] = c.String(k)
		}
	}
	cfg, warnings, err := config.Load(config.Sources{File: c.String("config"), Env: os.Environ(), Flags: set})
	for _, w := range warnings {
		fmt.Fprintln(c.App.ErrWriter, "svc-introspect: warning:", w.Message)
	}
	return cfg, err
}

// introspect connects to cfg's database and takes a snapshot of its schemas.
func introspect(ctx context.Context, cfg *config.Config) (*snapshot.Snapshot, error) {
	conn, err := connect(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	return catalog.Introspect(ctx, conn, catalog.Options{
		Schemas: cfg.DBSchemas, ExtraSearchPath: cfg.DBExtraSearchPath, GeneratorVersion: snapshot.SVCVersion,
		MissingSchemas: missingSchemas,
	})
}

func dump(ctx context.Context, w io.Writer, cfg *config.Config, path string) error {
	start := time.Now()
	snap, err := introspect(ctx, cfg)
	if err != nil {
		return err
	}
	size, err := snapshot.WriteFile(path, snap)
	if err != nil {
		return err
	}
	c := snap.Content
	fmt.Fprintf(w, "wrote %s: %d relations, %d relationships, %d functions; %s; %d ms; fingerprint %.12s\n",
		path, len(c.Relations), len(c.Relationships), len(c.Functions), byteSize(size),
		time.Since(start).Milliseconds(), snap.Header.Fingerprint)
	return nil
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
