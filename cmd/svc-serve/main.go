// Command svc-serve serves a PostgreSQL database as an HTTP API, knowing the
// schema from a snapshot file (or by introspecting at start when none is
// configured). `svc-serve demo` runs it on a throwaway database.
package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/logging"
	"github.com/svc-dev/svc/snapshot"
	"github.com/urfave/cli/v2"
)

func main() {
	if err := newApp(os.Stdout, os.Stderr).Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "svc-serve:", err)
		os.Exit(1)
	}
}

// newApp builds the command line, writing help to stdout and messages to
// stderr.
func newApp(stdout, stderr io.Writer) *cli.App {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "config", Aliases: []string{"c"}, Usage: "configuration file (PostgREST syntax: key = \"value\")"},
		&cli.BoolFlag{Name: "ready", Usage: "ask the running server's admin server for /ready and exit 0 when it answers 200, 1 otherwise (a container's health check)"},
	}
	// Every configuration key is also a flag, described from the same
	// table as the configuration reference; flags override the database,
	// which overrides SVC_* variables, which override the file. The
	// variables are read by config.Load, not by the library, which would
	// rank them above the database.
	for _, e := range config.Reference() {
		def := e.Default
		if def == "" {
			def = `""`
		}
		flags = append(flags, &cli.StringFlag{Name: e.Name, Usage: e.Usage(), DefaultText: def})
	}
	return &cli.App{
		Name:  "svc-serve",
		Usage: "serve a PostgreSQL database as an HTTP API",
		// --version: which snapshots it reads matters as much as the
		// release, since it refuses another format.
		Version:   snapshot.SVCVersion + " (snapshot format " + strconv.Itoa(snapshot.FormatVersion) + ")",
		Writer:    stdout,
		ErrWriter: stderr,
		Flags:     flags,
		ArgsUsage: "[CONFIG_FILE]",
		Action: func(c *cli.Context) error {
			file, err := configFile(c)
			if err != nil {
				return err
			}
			set := map[string]string{}
			for _, k := range config.Keys() {
				if c.IsSet(k) {
					set[k] = c.String(k)
				}
			}
			sources := config.Sources{File: file, Env: os.Environ(), Flags: set}
			cfg, warnings, err := config.Load(sources)
			if err != nil {
				// Before the loading error, which a misspelt key often
				// explains. With no configuration, no log-format is known:
				// the lines are svc-serve's last, and plain.
				for _, w := range warnings {
					fmt.Fprintln(stderr, "svc-serve: warning:", w.Message)
				}
				return err
			}
			if c.Bool("ready") {
				// A health check's output is its status: the warnings
				// are the server's to log.
				return checkReady(c.Context, cfg)
			}
			logWarnings(stderr, cfg, warnings)
			return serve(c.Context, sources, cfg, newLogger(cfg.LogLevel, cfg.LogFormat), nil)
		},
		Commands: []*cli.Command{demoCommand()},
	}
}

// configFile is the configuration file: --config, or the one argument
// PostgREST takes (postgrest FILE), which its users type out of habit and
// which must not be ignored. The library stops reading flags at the first
// argument, so flags after it are refused with a message saying where
// they go, rather than taken for more arguments.
func configFile(c *cli.Context) (string, error) {
	flag, args := c.String("config"), c.Args().Slice()
	switch {
	case len(args) == 0:
		return flag, nil
	case len(args) > 1 && strings.HasPrefix(args[1], "-"):
		return "", fmt.Errorf("flags go before the configuration file: svc-serve %s %s", strings.Join(args[1:], " "), args[0])
	case len(args) > 1:
		return "", fmt.Errorf("svc-serve takes one argument, the configuration file; got %d: %s", len(args), strings.Join(args, " "))
	case flag != "" && flag != args[0]:
		return "", fmt.Errorf("two configuration files: --config %s and %s", flag, args[0])
	}
	return args[0], nil
}

// logWarnings writes the configuration's warnings as svc-serve's log
// lines, in its log-format, so that a log collector reading JSON lines
// gets them too, and whatever log-level says: its default, error, would
// hide them.
func logWarnings(stderr io.Writer, cfg *config.Config, warnings []config.Warning) {
	log := logging.NewLogger(stderr, "warn", cfg.LogFormat)
	for _, w := range warnings {
		log.Warn(w.Message) // it names the key and where it was set
	}
}
