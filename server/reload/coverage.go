package reload

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/suggest"
	"github.com/svc-dev/svc/snapshot"
	"github.com/svc-dev/svc/sql/snapstore"
)

// ErrNotCovered is wrapped by CheckSnapshotCovers's errors: the snapshot
// lacks a schema the configuration exposes.
var ErrNotCovered = errors.New("the snapshot does not cover db-schemas")

// notCovered is CheckSnapshotCovers's error: its message, and ErrNotCovered.
type notCovered struct{ msg string }

func (e *notCovered) Error() string { return e.msg }
func (e *notCovered) Unwrap() error { return ErrNotCovered }

// CheckSnapshotCovers reports, for a snapshot read from a file or
// published in the database, schemas the configuration exposes that the
// snapshot was not dumped for: their routes would silently be missing. A
// name close to one the snapshot covers is more likely a typo in
// db-schemas than a new schema, and dumping it again would then fail, so
// the advice differs; so does it for a published snapshot, which is
// mended by publishing, not by a dump.
func CheckSnapshotCovers(snap *snapshot.Snapshot, cfg *config.Config) error {
	var missing, typos []string
	for _, s := range cfg.DBSchemas {
		if slices.Contains(snap.Header.Schemas, s) {
			continue
		}
		missing = append(missing, s)
		if meant := suggest.Typo(s, snap.Header.Schemas); meant != "" {
			typos = append(typos, fmt.Sprintf("%q for %q", meant, s))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	all := strings.Join(cfg.DBSchemas, ",")
	if store, published := snapstore.SettingSchema(cfg.Snapshot); published {
		publish := "svc-introspect publish --db-schemas " + all
		if store != snapstore.DefaultSchema {
			publish += " --schema " + store
		}
		msg := fmt.Sprintf("the published snapshot %.12s covers schemas %s but db-schemas also exposes %s; ",
			snap.Header.Fingerprint, strings.Join(snap.Header.Schemas, ","), strings.Join(missing, ","))
		if len(typos) > 0 {
			msg += fmt.Sprintf("did you mean %s? Correct db-schemas, or, if the schema is new, ", strings.Join(typos, ", "))
		}
		return &notCovered{msg + "publish a snapshot that covers them (" + publish + "), or expose only the schemas it covers (db-schemas)"}
	}
	msg := fmt.Sprintf("the snapshot covers schemas %s but db-schemas also exposes %s; ", strings.Join(snap.Header.Schemas, ","),
		strings.Join(missing, ","))
	if len(typos) > 0 {
		return &notCovered{fmt.Sprintf("%sdid you mean %s? Correct db-schemas, or, if the schema is new, dump the snapshot again "+
			"with svc-introspect dump --db-schemas %s", msg, strings.Join(typos, ", "), all)}
	}
	return &notCovered{fmt.Sprintf("%sdump it again with svc-introspect dump --db-schemas %s", msg, all)}
}

// Covering is the check every snapshot put in force for cfg must pass
// (Snapshots.Require): a file or a published snapshot covers the schemas
// cfg exposes. A live source introspects exactly those, less any that
// does not exist (served as empty: LiveSource), so it passes whatever.
func Covering(cfg *config.Config) func(*snapshot.Snapshot) error {
	if cfg.Snapshot == "" {
		return func(*snapshot.Snapshot) error { return nil }
	}
	return func(snap *snapshot.Snapshot) error { return CheckSnapshotCovers(snap, cfg) }
}
