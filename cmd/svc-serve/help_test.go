package main

import (
	"bytes"
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
