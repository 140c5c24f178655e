package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/snapshot"
	"github.com/urfave/cli/v2"
)

// TestHelpDescribesEveryKey: svc-serve --help describes each configuration
// flag from the key table the configuration reference is generated from,
// with its environment variable and default.
func TestHelpDescribesEveryKey(t *testing.T) {
	var out bytes.Buffer
	if err := newApp(&out, &out).Run([]string{"svc-serve", "--help"}); err != nil {
		t.Fatal(err)
	}
	lines := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(f[0], "--") {
			lines[strings.TrimPrefix(f[0], "--")] = line
		}
	}
	for _, e := range config.Reference() {
		line, ok := lines[e.Name]
		def := e.Default
		if def == "" {
			def = `""`
		}
		if !ok || !strings.Contains(line, e.Doc) || !strings.Contains(line, "[$"+e.Env+"]") ||
			!strings.HasSuffix(line, "(default: "+def+")") {
			t.Errorf("--%s: help line %q, want %q [$%s] (default: %s)", e.Name, line, e.Doc, e.Env, def)
		}
	}
}

// TestConfigFileArgument: `svc-serve FILE`, as PostgREST is run, reads
// FILE like --config; flags after it, or more files, are refused with a
// message rather than ignored.
func TestConfigFileArgument(t *testing.T) {
	path := filepath.Join(t.TempDir(), "svc.conf")
	if err := os.WriteFile(path, []byte("db-pool = \"ten\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	readFile := "config file " + path + ", line 1"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{path}, readFile},
		{[]string{"--config", path, path}, readFile},
		{[]string{"--db-schemas", "api", path}, readFile},
		{[]string{path, "--db-schemas", "api"}, "flags go before the configuration file: svc-serve --db-schemas api " + path},
		{[]string{path, "other.conf"}, "svc-serve takes one argument, the configuration file; got 2"},
		{[]string{"--config", "other.conf", path}, "two configuration files: --config other.conf and " + path},
	} {
		err := newApp(io.Discard, io.Discard).Run(append([]string{"svc-serve"}, c.args...))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("svc-serve %s: %v, want %q", strings.Join(c.args, " "), err, c.want)
		}
	}
}

// TestDemoHelpDescribesItsFlags: svc-serve demo --help says what the demo
// needs and does, and describes each of its flags.
func TestDemoHelpDescribesItsFlags(t *testing.T) {
	var out bytes.Buffer
	if err := newApp(&out, &out).Run([]string{"svc-serve", "demo", "--help"}); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	if !strings.Contains(help, "PostgreSQL\n   server programs") || !strings.Contains(help, "Ctrl-C stops it") {
		t.Errorf("no description of what the demo needs and does:\n%s", help)
	}
	for _, f := range demoCommand().Flags {
		usage := f.(cli.DocGenerationFlag).GetUsage()
		if usage == "" || !strings.Contains(help, "--"+f.Names()[0]+" value  ") || !strings.Contains(help, usage) {
			t.Errorf("--%s: usage %q not in\n%s", f.Names()[0], usage, help)
		}
	}
}

// TestVersion: both programs answer --version with SVC's version and the
// snapshot format they read and write.
func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if err := newApp(&out, &out).Run([]string{"svc-serve", "--version"}); err != nil {
		t.Fatal(err)
	}
	want := "svc-serve version " + snapshot.SVCVersion + " (snapshot format " + strconv.Itoa(snapshot.FormatVersion) + ")\n"
	if out.String() != want {
		t.Errorf("svc-serve --version: %q, want %q", out.String(), want)
	}
}
