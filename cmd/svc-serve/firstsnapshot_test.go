package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/logging"
)

// TestMissingSnapshotFile: a snapshot file that does not exist stops
// svc-serve with one message, naming the path the setting resolved to and
// the command that writes it, and no log line promising to serve 503
// until a snapshot loads.
func TestMissingSnapshotFile(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "svc.conf")
	text := "db-uri = \"" + authURI + "\"\ndb-schemas = \"serve_api\"\nsnapshot = \"api.msgpack\"\n" +
		"server-host = \"127.0.0.1\"\nserver-port = 0\ndb-channel-enabled = false\n"
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "api.msgpack")
	wd, _ := os.Getwd()
	for _, c := range []struct {
		name    string
		sources config.Sources
		want    string
	}{
		{"in the configuration file", config.Sources{File: conf},
			"the snapshot file " + path + " does not exist (the snapshot setting); write it with:\n" +
				"    svc-introspect dump --config " + conf + " -o " + path},
		{"as a flag", config.Sources{Flags: map[string]string{"db-uri": authURI, "db-schemas": "serve_api",
			"snapshot": "missing.msgpack", "server-port": "0", "db-channel-enabled": "false"}},
			"the snapshot file " + filepath.Join(wd, "missing.msgpack") + " does not exist (the snapshot setting); write it with:\n" +
				"    svc-introspect dump --db-uri <db-uri> --db-schemas serve_api -o " + filepath.Join(wd, "missing.msgpack")},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, _, err := config.Load(c.sources)
			if err != nil {
				t.Fatal(err)
			}
			var logs logBuffer
			err = serve(t.Context(), c.sources, cfg, logging.NewLogger(&logs, cfg.LogLevel, cfg.LogFormat), nil)
			if err == nil || err.Error() != c.want {
				t.Errorf("serve: %v\nwant: %s", err, c.want)
			}
			// The promise of 503s, not the digits: a log line's timestamp
			// can hold 503 (20:35:03.503).
			if strings.Contains(logs.String(), "answered 503") || strings.Contains(logs.String(), "level=ERROR") {
				t.Errorf("the log says more than the error:\n%s", logs.String())
			}
		})
	}
}
