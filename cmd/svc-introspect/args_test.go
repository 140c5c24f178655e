package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestFlagsFirst: flags written after the files, as many tools allow, are
// moved before them; values stay with their flags and "--" still ends the
// flags.
func TestFlagsFirst(t *testing.T) {
	t.Parallel()
	commands := []*cli.Command{inspectCommand(), diffCommand(), dumpCommand(), typesCommand()}
	cases := []struct{ in, want string }{
		{"inspect FILE --json", "inspect --json FILE"},
		{"inspect --json FILE", "inspect --json FILE"},
		{"diff OLD NEW --fail-on-breaking", "diff --fail-on-breaking OLD NEW"},
		{"diff OLD --json NEW --fail-on-breaking", "diff --json --fail-on-breaking OLD NEW"},
		{"dump -o out.msgpack --db-schemas api", "dump -o out.msgpack --db-schemas api"},
		{"dump --db-schemas=api -o x", "dump --db-schemas=api -o x"},
		{"inspect FILE --no-such-flag", "inspect --no-such-flag FILE"},
		{"inspect FILE -- --json", "inspect -- FILE --json"},
		{"inspect - --json", "inspect --json -"},
		{"unknown FILE --json", "unknown FILE --json"},
		{"inspect", "inspect"},
		// A subcommand's flags are its own, values kept with them.
		{"types typescript --snapshot s.msgpack -o t.ts", "types typescript --snapshot s.msgpack -o t.ts"},
		{"types typescript EXTRA --role r", "types typescript --role r EXTRA"},
	}
	for _, c := range cases {
		in := append([]string{"svc-introspect"}, strings.Fields(c.in)...)
		want := append([]string{"svc-introspect"}, strings.Fields(c.want)...)
		if got := flagsFirst(commands, in); !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", c.in, got[1:], want[1:])
		}
	}
}
