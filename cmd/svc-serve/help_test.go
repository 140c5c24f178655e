package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/config"
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
