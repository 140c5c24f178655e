// Package naming puts in force the names a client and the database see
// (error codes, media types, the NOTIFY channel, the settings prefix), as
// compat-names chooses, and names the channel a configuration's servers
// listen on. It is small on purpose: svc-introspect publish needs the
// channel, and must not link the HTTP server for it.
package naming

import (
	"fmt"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
)

// Use puts in force the naming cfg's compat-names chooses
// (apierr.Names: error codes, vendor media types, the default channel, the
// raised-error SQLSTATE and the in-database settings prefix). svc-serve
// calls it once at start, before reading in-database settings or serving:
// the naming is process-wide and read without locking, which is why a
// reload cannot change it (see CheckUnchanged).
func Use(cfg *config.Config) error { return apierr.Use(cfg.CompatNames) }

// ListenChannel is the NOTIFY channel of cfg's servers: db-channel, or
// when it is unset the channel of its naming (svc, or pgrst under
// compat-names = postgrest), as PostgREST falls back to pgrst. It reads
// cfg only, so svc-introspect publish can notify the same channel.
func ListenChannel(cfg *config.Config) string {
	if cfg.DBChannel != "" {
		return cfg.DBChannel
	}
	return apierr.Namings[cfg.CompatNames].Channel
}

// OtherChannels are the channels cfg's servers listen on besides
// ListenChannel, each with what to tell an operator whose notification
// arrived there: the default channels of the namings not in force, so
// that a PostgREST migration tool's NOTIFY pgrst reaches a server under
// SVC's names (and NOTIFY svc one under PostgREST's) rather than
// vanishing without a word. None when db-channel is set: a channel chosen
// by name is the only one.
func OtherChannels(cfg *config.Config) map[string]string {
	if cfg.DBChannel != "" {
		return nil
	}
	own := ListenChannel(cfg)
	others := map[string]string{}
	for mode, n := range apierr.Namings {
		if n.Channel == own {
			continue
		}
		others[n.Channel] = fmt.Sprintf("%s is the channel of compat-names = %s, and this server runs under compat-names = %s, "+
			"whose channel is %s; acting on it all the same. Notify %s, or set compat-names = %s (or db-channel = %s) "+
			"to make %s the channel; compat-names = %s would change %s", n.Channel, mode, cfg.CompatNames, own, own, mode, n.Channel, n.Channel,
			mode, apierr.NamingChanges(cfg.CompatNames, mode))
	}
	return others
}

// CheckUnchanged refuses a reloaded configuration whose compat-names
// differs from the one in force: the channel is already listened to and
// clients already use the names, so switching takes a restart.
func CheckUnchanged(old, cfg *config.Config) error {
	if old.CompatNames == cfg.CompatNames {
		return nil
	}
	return fmt.Errorf("compat-names changed from %s to %s; the naming is fixed when svc-serve starts, so restart it to switch",
		old.CompatNames, cfg.CompatNames)
}
