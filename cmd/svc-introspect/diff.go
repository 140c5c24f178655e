package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/svc-dev/svc/snapshot"
	"github.com/urfave/cli/v2"
)

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "list the API changes from one snapshot file to another, breaking ones marked",
		ArgsUsage: "OLD NEW",
		Description: "Compares routes (relations, functions), columns, relationships, function signatures and\n" +
			"grants. Exit status: 0, or 1 with --fail-on-breaking when a change is breaking; 2 on errors.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the changes as JSON, for tools"},
			&cli.BoolFlag{Name: "fail-on-breaking", Usage: "exit with status 1 when a change is breaking"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return fmt.Errorf("diff takes two snapshot files, OLD and NEW, got %d arguments", c.NArg())
			}
			old, err := snapshot.ReadFile(c.Args().Get(0))
			if err != nil {
				return err
			}
			new, err := snapshot.ReadFile(c.Args().Get(1))
			if err != nil {
				return err
			}
			changes := snapshot.Diff(old, new)
			if c.Bool("json") {
				err = writeChangesJSON(c.App.Writer, old, new, changes)
			} else {
				writeChanges(c.App.Writer, changes)
			}
			if err != nil {
				return err
			}
			return failOnBreaking(c.Bool("fail-on-breaking"), changes)
		},
	}
}

// failOnBreaking returns a breakingError when asked to and a change breaks.
func failOnBreaking(fail bool, changes []snapshot.Change) error {
	if !fail {
		return nil
	}
	n := 0
	for _, ch := range changes {
		if ch.Breaking {
			n++
		}
	}
	if n > 0 {
		return breakingError{count: n}
	}
	return nil
}

// writeChanges prints one line per change, breaking ones starting with
// BREAKING, then a count.
func writeChanges(w io.Writer, changes []snapshot.Change) {
	breaking := 0
	for _, ch := range changes {
		mark := "         "
		if ch.Breaking {
			mark = "BREAKING "
			breaking++
		}
		fmt.Fprintln(w, mark+ch.String())
	}
	if len(changes) == 0 {
		fmt.Fprintln(w, "no API changes")
		return
	}
	fmt.Fprintf(w, "%d changes, %d breaking\n", len(changes), breaking)
}

// diffReport is diff --json's output.
type diffReport struct {
	Old      string            `json:"old_fingerprint"`
	New      string            `json:"new_fingerprint"`
	Breaking bool              `json:"breaking"`
	Changes  []snapshot.Change `json:"changes"`
}

func writeChangesJSON(w io.Writer, old, new *snapshot.Snapshot, changes []snapshot.Change) error {
	if changes == nil {
		changes = []snapshot.Change{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(diffReport{Old: old.Header.Fingerprint, New: new.Header.Fingerprint,
		Breaking: snapshot.AnyBreaking(changes), Changes: changes})
}
