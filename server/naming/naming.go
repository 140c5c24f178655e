// Package naming names the NOTIFY channel a configuration's servers
// listen on, and the other namings' channels they also hear, and keeps a
// reload from switching compat-names. The naming itself is a value
// (apierr.NamingOf(cfg.CompatNames)) each server is handed at start. It is
// small on purpose: svc-introspect publish needs the channel, and must not
// link the HTTP server for it.
package naming

import (
	"fmt"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
)

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
