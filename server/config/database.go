package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// notFromDatabase are the keys in-database configuration cannot set: how
// to reach the database and listen, and what to serve from, are needed
// before the database can be asked; the pool is sized once; compat-names
// names the settings read from the database.
var notFromDatabase = []string{
	"db-uri", "db-config", "db-pre-config", "db-pool", "db-channel", "db-channel-enabled",
	"server-host", "server-port", "snapshot", "log-level",
	"server-unix-socket", "server-unix-socket-mode", "server-reuseport", "server-sched-batch", "db-channel-uri",
	"server-max-header-bytes", "server-read-timeout", "server-write-timeout", "server-idle-timeout",
	"compat-names",
}

// DatabaseSettings maps the in-database setting names (without their
// prefix, "db_schemas" for db-schemas, as PostgreSQL names cannot hold
// "-") to the keys they set, for every key the database may set.
func DatabaseSettings() map[string]string {
	out := map[string]string{}
	for _, k := range keys {
		if !slices.Contains(notFromDatabase, k.name) {
			out[strings.ReplaceAll(k.name, "-", "_")] = k.name
		}
	}
	return out
}

// readDatabase assigns the settings read from the database (key name ->
// value; see DatabaseSettings). prefix names them in messages ("svc.").
func (l *loader) readDatabase(settings map[string]string, prefix string) {
	for _, name := range slices.Sorted(maps.Keys(settings)) {
		src := "database setting " + prefix + strings.ReplaceAll(name, "-", "_")
		if slices.Contains(notFromDatabase, name) {
			l.warn(name, src, fmt.Sprintf("configuration key %q cannot be set from the database and is ignored (%s)", name, src))
			continue
		}
		l.assign(name, settings[name], src)
	}
}
