package main

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/snapshot/tstypes"
	"github.com/svc-dev/svc/sql/snapstore"
	"github.com/urfave/cli/v2"
)

// staleError is returned by types --check when the file differs from
// what the snapshot gives; it exits with exitBreaking (1), as diff(1)
// exits when files differ. It names the first line that differs, so a
// CI log says what changed without the file at hand.
type staleError struct {
	path      string
	line      int
	old, want string
}

func (e staleError) Error() string {
	return fmt.Sprintf("%s differs from the types of the snapshot from line %d:\n-%s\n+%s\nwrite it again with -o %s",
		e.path, e.line, e.old, e.want, e.path)
}

// firstDifference returns the first line (from 1) where old and want
// differ, and that line of each ("" past the end). The header line names
// the snapshot, which every migration changes, so a difference below it
// comes first: that is what changed in the types.
func firstDifference(old, want []byte) (int, string, string) {
	a, b := strings.Split(string(old), "\n"), strings.Split(string(want), "\n")
	if line, x, y := firstFrom(a, b, 1); x != y {
		return line, x, y
	}
	return firstFrom(a, b, 0)
}

// firstFrom is firstDifference's search from line i+1.
func firstFrom(a, b []string, i int) (int, string, string) {
	for ; ; i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y || i >= len(a) || i >= len(b) {
			return i + 1, x, y
		}
	}
}

func typesCommand() *cli.Command {
	return &cli.Command{
		Name:  "types",
		Usage: "write the types of a snapshot's API for typed clients, without a database",
		Subcommands: []*cli.Command{{
			Name:  "typescript",
			Usage: "write the Database type postgrest-js and supabase-js type queries with",
			Description: "Writes a TypeScript module (Json, Database, helper types, Constants) whose first line names the\n" +
				"snapshot's fingerprint. Exit status: 0; with --check, 1 when the file differs; 2 on errors.",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "snapshot", Usage: "snapshot file to describe", DefaultText: "the configuration's snapshot file"},
				&cli.StringFlag{Name: "config", Usage: "read the snapshot file and db-schemas from this svc-serve configuration file"},
				&cli.StringSliceFlag{Name: "schema", Usage: "exposed schema to write (repeat for more)", DefaultText: "db-schemas with --config, else every schema of the snapshot"},
				&cli.StringFlag{Name: "role", Usage: "write only what this role may use", DefaultText: "everything"},
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "file to write (atomically)", DefaultText: "standard output"},
				&cli.StringFlag{Name: "check", Usage: "write nothing; exit with status 1 when `FILE` differs from the types"},
			},
			Action: func(c *cli.Context) error {
				if c.NArg() != 0 {
					return fmt.Errorf("types typescript takes no arguments (the snapshot is --snapshot FILE), got %q", c.Args().Slice())
				}
				module, err := typescript(c)
				if err != nil {
					return err
				}
				switch {
				case c.IsSet("check"):
					old, err := os.ReadFile(c.String("check"))
					if err != nil {
						return err
					}
					if !bytes.Equal(old, module) {
						line, was, want := firstDifference(old, module)
						return staleError{c.String("check"), line, was, want}
					}
					return nil
				case c.IsSet("output"):
					return writeFileAtomic(c.String("output"), bytes.TrimSuffix(module, []byte("\n")))
				}
				_, err = c.App.Writer.Write(module)
				return err
			},
		}},
	}
}

// typescript generates the module for the snapshot, schemas and role the
// flags and the configuration file name.
func typescript(c *cli.Context) ([]byte, error) {
	var cfg *config.Config
	if c.IsSet("config") {
		var warnings []config.Warning
		var err error
		cfg, warnings, err = config.Load(config.Sources{File: c.String("config"), Env: os.Environ()})
		for _, w := range warnings {
			fmt.Fprintln(c.App.ErrWriter, "svc-introspect: warning:", w.Message)
		}
		if err != nil {
			return nil, err
		}
	}
	path := c.String("snapshot")
	if path == "" && cfg != nil {
		if _, inDB := snapstore.SettingSchema(cfg.Snapshot); !inDB {
			path = cfg.Snapshot
		}
	}
	if path == "" {
		return nil, fmt.Errorf("give the snapshot file to describe with --snapshot FILE")
	}
	snap, err := snapshot.ReadFile(path)
	if err != nil {
		return nil, err
	}
	schemas := c.StringSlice("schema")
	if len(schemas) == 0 && cfg != nil {
		schemas = slices.Clone(cfg.DBSchemas)
	}
	return tstypes.Generate(snap, tstypes.Options{Schemas: schemas, Role: c.String("role")})
}
