package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/openapi"
	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/sql/snapstore"
	"github.com/urfave/cli/v2"
)

// openAPIKeys are the configuration keys the openapi command reads: who
// the document is for and where it says the API is, as svc-serve's root
// would say it.
var openAPIKeys = []string{"db-anon-role", "openapi-mode", "openapi-security-active", "openapi-server-proxy-uri", "openapi-version"}

func openAPICommand() *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "snapshot", Usage: "snapshot file to describe", DefaultText: "the configuration's snapshot file"},
		&cli.StringFlag{Name: "config", Usage: "read the snapshot file, compat-names and " + strings.Join(openAPIKeys, ", ") + " from this svc-serve configuration file"},
		&cli.StringFlag{Name: "schema", Usage: "exposed schema to describe", DefaultText: "the snapshot's first"},
		&cli.StringFlag{Name: "role", Usage: "describe what this role may use, as GET / does for it", DefaultText: "db-anon-role; without one, everything (ignore-privileges)"},
		&cli.StringFlag{Name: "version", Usage: "description to write: 3.1 (OpenAPI 3.1) or 2.0 (Swagger 2.0)", Value: openapi.OpenAPI31},
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "file to write (atomically)", DefaultText: "standard output"},
	}
	for _, k := range openAPIKeys {
		if k != "openapi-version" {
			flags = append(flags, &cli.StringFlag{Name: k, Usage: "overrides the configuration file and SVC_* environment"})
		}
	}
	return &cli.Command{
		Name:  "openapi",
		Usage: "write the OpenAPI description svc-serve's root gives for a snapshot, without a database",
		Flags: flags,
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return fmt.Errorf("openapi takes no arguments (the snapshot is --snapshot FILE), got %q", c.Args().Slice())
			}
			cfg, err := openAPIConfig(c)
			if err != nil {
				return err
			}
			doc, err := describe(c, cfg)
			if err != nil {
				return err
			}
			if !c.IsSet("output") {
				_, err := c.App.Writer.Write(append(doc, '\n'))
				return err
			}
			return writeFileAtomic(c.String("output"), doc)
		},
	}
}

// openAPIConfig reads openAPIKeys as svc-serve reads them (file, SVC_*
// variables, flags), and puts the configuration's naming in force, as the
// vendor media types the document lists follow it.
func openAPIConfig(c *cli.Context) (*config.Config, error) {
	set := map[string]string{}
	for _, k := range openAPIKeys {
		if c.IsSet(k) {
			set[k] = c.String(k)
		}
	}
	cfg, warnings, err := config.Load(config.Sources{File: c.String("config"), Env: os.Environ(), Flags: set})
	for _, w := range warnings {
		fmt.Fprintln(c.App.ErrWriter, "svc-introspect: warning:", w.Message)
	}
	if err != nil {
		return nil, err
	}
	return cfg, nil
}

// describe builds the document of the snapshot, schema and role the flags
// and cfg name.
func describe(c *cli.Context, cfg *config.Config) ([]byte, error) {
	version := c.String("version")
	if !slices.Contains(openapi.Formats, version) {
		return nil, fmt.Errorf("--version %q: expected one of %s", version, strings.Join(openapi.Formats, ", "))
	}
	path := c.String("snapshot")
	if path == "" {
		if _, inDB := snapstore.SettingSchema(cfg.Snapshot); inDB || cfg.Snapshot == "" {
			return nil, fmt.Errorf("give the snapshot file to describe with --snapshot FILE")
		}
		path = cfg.Snapshot
	}
	snap, err := snapshot.ReadFile(path)
	if err != nil {
		return nil, err
	}
	schema := c.String("schema")
	if schema == "" && len(snap.Header.Schemas) > 0 {
		schema = snap.Header.Schemas[0]
	}
	if !slices.Contains(snap.Header.Schemas, schema) {
		return nil, fmt.Errorf("--schema %q: the snapshot holds %s", schema, strings.Join(snap.Header.Schemas, ", "))
	}
	role := c.String("role")
	if role == "" {
		role = cfg.DBAnonRole
	}
	follow := role != "" && cfg.OpenAPIMode != config.OpenAPIIgnorePrivileges
	if follow && snap.Role(role) == nil {
		return nil, fmt.Errorf("role %q: the snapshot knows no such role", role)
	}
	scheme, host, basePath := cfg.OpenAPIServer()
	if cfg.OpenAPIServerProxyURI == "" {
		// svc-serve's own address is unknown here: a 3.1 document says
		// "/" (the server it is fetched from), a 2.0 one no host.
		scheme, host, basePath = "", "", ""
	}
	return openapi.Build(snap, openapi.Options{
		Schema: schema, Version: snapshot.SVCVersion, Role: role, FollowPrivileges: follow,
		Security: cfg.OpenAPISecurityActive, Scheme: scheme, Host: host, BasePath: basePath,
		Vendor: apierr.NamingOf(cfg.CompatNames).Vendor, Format: version, Anonymous: cfg.DBAnonRole != "",
	})
}

// writeFileAtomic writes data to path through a temporary file renamed
// over it, so a reader (a web server publishing the file) never sees half
// of it.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	// CreateTemp makes the file private; the document is for publishing.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
