// Command svc-introspect reads a PostgreSQL catalog into a schema snapshot
// file (dump), describes snapshot files (inspect), lists the API changes
// between two of them (diff) and stores one where a fleet of servers reads
// it (publish). It is the only SVC program that runs catalog queries on
// purpose: CI runs it, servers load what it writes. It also writes, from a
// snapshot alone, the OpenAPI description (openapi) and the TypeScript
// types of typed clients (types typescript).
//
// Exit status: 0 on success, 1 when diff or publish --fail-on-breaking
// finds a breaking change or types --check finds its file out of date,
// 2 for any error (usage, unreadable file, database), so CI can tell a
// refused change from a broken step.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/svc-dev/svc/snapshot"
	"github.com/urfave/cli/v2"
)

// Exit statuses; see the package comment.
const (
	exitBreaking = 1
	exitError    = 2
)

// breakingError is returned by commands that found breaking changes
// under --fail-on-breaking; it exits with exitBreaking.
type breakingError struct{ count int }

func (e breakingError) Error() string {
	return fmt.Sprintf("%d breaking API change(s); see above", e.count)
}

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// run runs the program with args (args[0] is the program name), writing to
// stdout and stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	app := &cli.App{
		Name:  "svc-introspect",
		Usage: "write and read SVC schema snapshots",
		// --version: the snapshot format it writes is what servers check.
		Version:   snapshot.SVCVersion + " (snapshot format " + strconv.Itoa(snapshot.FormatVersion) + ")",
		Writer:    stdout,
		ErrWriter: stderr,
		// Errors are mapped to exit statuses below, not by the library.
		ExitErrHandler: func(*cli.Context, error) {},
		Commands: []*cli.Command{
			dumpCommand(),
			inspectCommand(),
			diffCommand(),
			publishCommand(),
			openAPICommand(),
			typesCommand(),
		},
	}
	err := app.Run(flagsFirst(app.Commands, args))
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "svc-introspect:", err)
	if errors.As(err, new(breakingError)) || errors.As(err, new(staleError)) {
		return exitBreaking
	}
	return exitError
}
