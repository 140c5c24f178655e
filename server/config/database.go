package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// DatabaseSettings maps the in-database setting names (without their
// prefix, "db_schemas" for db-schemas, as PostgreSQL names cannot hold
// "-") to the keys they set, for every key the database may set.
func DatabaseSettings() map[string]string {
	out := map[string]string{}
	for _, k := range keys {
		if !k.notInDB {
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
		if k := keyByName[name]; k != nil && k.notInDB {
			l.warn(name, src, fmt.Sprintf("configuration key %q cannot be set from the database and is ignored (%s)", name, src))
			continue
		}
		l.assign(name, settings[name], src)
	}
}
