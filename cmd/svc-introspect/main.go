// Command svc-introspect reads a PostgreSQL catalog into a schema snapshot
// file (dump) and describes snapshot files (inspect). It is the only SVC
// program that runs catalog queries on purpose: CI runs it, servers load
// what it writes.
package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"
)

func main() {
	app := &cli.App{
		Name:  "svc-introspect",
		Usage: "write and read SVC schema snapshots",
		Commands: []*cli.Command{
			dumpCommand(),
			inspectCommand(),
		},
	}
	if err := app.Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "svc-introspect:", err)
		os.Exit(1)
	}
}
