package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/svc-dev/svc/snapshot"
)

// A server refuses a snapshot that does not cover the schemas it exposes
// (db-schemas): it keeps the one in force, and one starting has none to
// serve. So a publish that no server could use, the usual rollback to a
// snapshot older than the last exposed schema, would split the fleet
// between nodes that kept the newer snapshot and nodes that have none.
// publish refuses it instead, before anything is written.
//
// What the servers expose is known, in this order, from
// --servers-db-schemas; from --config, the servers' own configuration
// file (and SVC_* variables, and, when its db-config is on, the settings
// its role carries in the database, which override the file for the
// servers too), when the snapshot is not a fresh dump of --db-schemas;
// and otherwise from the snapshot active now, which the
// running servers are using and so covers what they expose. The last is
// cautious: a publish meant to drop an exposed schema after the servers
// stopped exposing it names what they expose now with
// --servers-db-schemas.

// serversSchemas says what the servers expose, and how that is known.
type serversSchemas struct {
	schemas []string
	from    string // for the message: where the list came from
}

// uncovered refuses snap when it does not cover what the servers expose
// (known), or, when nothing says (known nil), the schemas of the active
// snapshot (nil for none); nil when it covers them.
func uncovered(snap, active *snapshot.Snapshot, known *serversSchemas) error {
	need := known
	if need == nil {
		if active == nil {
			return nil // nothing published yet: no server runs on a snapshot
		}
		need = &serversSchemas{schemas: active.Header.Schemas,
			from: fmt.Sprintf("the snapshot active now, %.12s, which the running servers use", active.Header.Fingerprint)}
	}
	var missing []string
	for _, s := range need.schemas {
		if !slices.Contains(snap.Header.Schemas, s) {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("snapshot %.12s covers schemas %s, not %s, which the servers expose (%s): every server would "+
		"refuse it and keep the snapshot it has, and one starting would serve nothing; nothing was published.\n"+
		"Publish a snapshot that covers %s (svc-introspect publish --db-schemas %s, or --file with one dumped so), "+
		"or, if the servers no longer expose %s, say what they expose with --servers-db-schemas",
		snap.Header.Fingerprint, strings.Join(snap.Header.Schemas, ","), strings.Join(missing, ","), need.from,
		strings.Join(need.schemas, ","), strings.Join(need.schemas, ","), strings.Join(missing, ","))
}
