package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/svc-dev/svc/snapshot"
	"github.com/urfave/cli/v2"
)

func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "describe a snapshot file",
		ArgsUsage: "FILE",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the whole snapshot as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return fmt.Errorf("inspect takes one snapshot file, got %d arguments", c.NArg())
			}
			snap, err := snapshot.ReadFile(c.Args().First())
			if err != nil {
				return err
			}
			if c.Bool("json") {
				enc := json.NewEncoder(c.App.Writer)
				enc.SetIndent("", "  ")
				return enc.Encode(snap)
			}
			summarize(c.App.Writer, snap)
			return nil
		},
	}
}

// summarize prints a readable overview: the header, then each relation with
// its columns and key, its computed fields and relationships, then the
// functions, the domain representations (casts) and the media handlers.
func summarize(w io.Writer, s *snapshot.Snapshot) {
	h := s.Header
	fmt.Fprintf(w, "snapshot format %d, written by SVC %s at %s\n", h.FormatVersion, h.GeneratorVersion, h.CreatedAt.Format("2006-01-02 15:04:05Z07:00"))
	fmt.Fprintf(w, "PostgreSQL %s; schemas %s; extra search path %s\n", h.PGVersion, strings.Join(h.Schemas, ", "), strings.Join(h.ExtraSearchPath, ", "))
	fmt.Fprintf(w, "fingerprint %s\n", h.Fingerprint)
	c := s.Content
	fmt.Fprintf(w, "%d relations, %d relationships, %d functions, %d casts, %d roles, %d media handlers\n\n",
		len(c.Relations), len(c.Relationships), len(c.Functions), len(c.Casts), len(c.Roles), len(c.MediaHandlers))
	for _, r := range c.Relations {
		cols := make([]string, len(r.Columns))
		for i, col := range r.Columns {
			cols[i] = col.Name + " " + col.Type
		}
		fmt.Fprintf(w, "%s %s (%s)", r.Kind, r.QualifiedName, strings.Join(cols, ", "))
		if len(r.PrimaryKey) > 0 {
			fmt.Fprintf(w, " primary key (%s)", strings.Join(r.PrimaryKey, ", "))
		}
		fmt.Fprintln(w)
		for _, f := range r.ComputedFields {
			fmt.Fprintf(w, "    computed %s %s via %s\n", f.Name(), f.Type, f.Function)
		}
		var rels []string
		for _, rel := range s.RelationshipsFrom(r.QualifiedName) {
			rels = append(rels, fmt.Sprintf("%s %s via %s", rel.Cardinality, rel.ForeignTable, rel.Constraint))
		}
		sort.Strings(rels)
		for _, line := range rels {
			fmt.Fprintln(w, "    ->", line)
		}
	}
	if len(c.Functions) > 0 {
		fmt.Fprintln(w)
	}
	for _, f := range c.Functions {
		args := make([]string, 0, len(f.Arguments))
		for _, a := range f.Arguments {
			args = append(args, strings.TrimSpace(a.Name+" "+a.Type))
		}
		fmt.Fprintf(w, "function %s(%s) %s %s, %s", f.QualifiedName, strings.Join(args, ", "), f.Returns, f.ReturnType, f.Volatility)
		if f.Media != nil {
			fmt.Fprintf(w, ", answers %s", f.Media.Type)
		}
		fmt.Fprintln(w)
	}
	if len(c.Casts) > 0 {
		fmt.Fprintln(w)
	}
	for _, cast := range c.Casts {
		fmt.Fprintf(w, "cast %s -> %s via %s\n", cast.Source, cast.Target, cast.Function)
	}
	if len(c.MediaHandlers) > 0 {
		fmt.Fprintln(w)
	}
	for _, h := range c.MediaHandlers {
		rows := "any relation"
		if !h.AnyElement() {
			rows = h.Relation.String()
		}
		fmt.Fprintf(w, "media %s for %s via %s\n", h.Media.Type, rows, h.Aggregate)
	}
}
