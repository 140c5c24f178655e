package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// flagsFirst moves the flags that follow a command's positional arguments
// in front of them: urfave/cli, like Go's flag package, stops reading
// flags at the first positional argument, so `inspect FILE --json` would
// take --json for a second file. Flags are recognised by the command's own
// definitions, so a flag's value is never mistaken for a file; an unknown
// flag moves too and is refused by the library as usual. After "--" every
// argument is positional, and "--" goes before all of them. args[0] is the
// program and args[1] the command (with a subcommand, args[2]); anything
// else is returned as it is.
func flagsFirst(commands []*cli.Command, args []string) []string {
	if len(args) < 3 {
		return args
	}
	var cmd *cli.Command
	for _, c := range commands {
		if c.HasName(args[1]) {
			cmd = c
		}
	}
	if cmd == nil {
		return args
	}
	if len(cmd.Subcommands) > 0 {
		// "types typescript FLAGS": the subcommand's flags are its own.
		return append([]string{args[0]}, flagsFirst(cmd.Subcommands, args[1:])...)
	}
	var flags, positional []string
	rest, dashes := args[2:], false
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			positional, dashes = append(positional, rest[i+1:]...), true
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name, _, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !inline && takesValue(cmd, name) && i+1 < len(rest) {
			i++
			flags = append(flags, rest[i])
		}
	}
	out := append([]string{args[0], args[1]}, flags...)
	if dashes {
		out = append(out, "--")
	}
	return append(out, positional...)
}

// takesValue reports whether cmd has a flag called name that takes a value
// (every kind but a boolean).
func takesValue(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				_, isBool := f.(*cli.BoolFlag)
				return !isBool
			}
		}
	}
	return false
}
