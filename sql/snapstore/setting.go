package snapstore

import "strings"

// SettingSchema reads the snapshot setting: "db" names DefaultSchema,
// "db:<schema>" another; any other value (a file path) is not a snapshot
// in the database. A file named db is written ./db. svc-serve reads it to
// choose its source, svc-introspect dump to refuse to write a file the
// servers would not read.
func SettingSchema(value string) (schema string, ok bool) {
	if value == "db" {
		return DefaultSchema, true
	}
	return strings.CutPrefix(value, "db:")
}
