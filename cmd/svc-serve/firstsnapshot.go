package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/svc-dev/svc/server/config"
)

// firstSnapshotError words a first snapshot that could not be loaded, as
// svc-serve's one message before it exits. A snapshot file that does not
// exist yet is the usual first-run mistake: the message names the path
// the setting resolved to (relative to the configuration file, or to the
// directory svc-serve started in) and the command that writes it.
// Anything else (a damaged file, nothing published) already says what is
// wrong and what to run.
func firstSnapshotError(err error, sources config.Sources, cfg *config.Config) error {
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	path, absErr := filepath.Abs(cfg.Snapshot)
	if absErr != nil {
		path = cfg.Snapshot
	}
	return fmt.Errorf("the snapshot file %s does not exist (the snapshot setting); write it with:\n    %s",
		path, dumpCommand(sources.File, cfg, path))
}

// dumpCommand is the svc-introspect command that writes the snapshot the
// server reads at path: with the same configuration file, or with the
// schemas to dump and a placeholder for the database, whose URI may hold
// a password that has no place in a log.
func dumpCommand(file string, cfg *config.Config, path string) string {
	if file != "" {
		return "svc-introspect dump --config " + shellWord(file) + " -o " + shellWord(path)
	}
	cmd := "svc-introspect dump --db-uri <db-uri> --db-schemas " + shellWord(strings.Join(cfg.DBSchemas, ","))
	if !slices.Equal(cfg.DBExtraSearchPath, config.Default().DBExtraSearchPath) {
		cmd += " --db-extra-search-path " + shellWord(strings.Join(cfg.DBExtraSearchPath, ","))
	}
	return cmd + " -o " + shellWord(path)
}

// shellWord quotes s for a POSIX shell when it holds anything but the
// characters a path or a list of names usually has.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./,:@+=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
