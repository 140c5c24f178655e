package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// This file holds what lets a PostgREST deployment's configuration start
// SVC unchanged: the compat-names values, PostgREST's older key names, its
// keys SVC does not implement (and which of them are harmless to ignore),
// and its PGRST_* environment variables.

// NamingModes are the values of compat-names, the keys of apierr.Namings
// (config may not import apierr; a test in package server keeps the two
// equal). The first is the default.
var NamingModes = []string{"svc", CompatPostgREST}

// CompatPostgREST is the compat-names value for PostgREST's names.
const CompatPostgREST = "postgrest"

// pgrstEnvPrefix starts PostgREST's environment variables, read besides
// SVC_* ones under compat-names = postgrest. When a key is set both ways,
// SVC_* wins: it is the name written for SVC, most likely later, on purpose.
const pgrstEnvPrefix = "PGRST_"

// aliases are PostgREST's older key names, which PostgREST 12 still reads,
// mapped to the current names. As in PostgREST, the current name wins
// when both are set, whatever the sources.
var aliases = map[string]string{
	"db-schema":        "db-schemas",
	"max-rows":         "db-max-rows",
	"pre-request":      "db-pre-request",
	"root-spec":        "db-root-spec",
	"role-claim-key":   "jwt-role-claim-key",
	"secret-is-base64": "jwt-secret-is-base64",
	"db-pool-timeout":  "db-pool-max-idletime",
}

// unimplemented is one of PostgREST's keys SVC does not implement.
type unimplemented struct {
	name string
	// instead says what SVC does, for the message.
	instead string
	// harmless lists the values (any letter case) at which ignoring the key
	// changes nothing a client sees; nil means every value. Any other value
	// stops SVC from starting: serving clients something other than what
	// the deployment asked for would be a silent break.
	harmless []string
}

// unimplementedKeys are PostgREST's keys (12, and its neighbours so a file
// written for either starts) that SVC ignores, with a warning at start, or
// refuses where a client would notice.
var unimplementedKeys = []unimplemented{
	{name: "jwt-cache-max-lifetime",
		instead: "SVC caches verified tokens until they expire (at most five minutes), at most jwt-cache-max-entries of them in at most jwt-cache-max-bytes"},
	{name: "db-pool-automatic-recovery",
		instead: "SVC always reconnects, answering 503 with Retry-After while the database is away"},
	{name: "db-hoisted-tx-settings",
		instead: "SVC applies the role's own settings but does not hoist a function's SET clauses to the transaction"},
	{name: "server-otel-enabled",
		instead: "SVC exports no OpenTelemetry traces; server-timing-enabled and the admin server's /metrics report timings"},
	{name: "raw-media-types",
		instead: "PostgREST 12 removed it as well"},
	{name: "db-timezone-enabled", harmless: []string{"true"},
		instead: "SVC always honours Prefer: timezone"},
}

// unimplementedKey finds name in unimplementedKeys; nil when absent.
func unimplementedKey(name string) *unimplemented {
	for i := range unimplementedKeys {
		if unimplementedKeys[i].name == name {
			return &unimplementedKeys[i]
		}
	}
	return nil
}

// readPGRSTEnv reads PGRST_* variables under compat-names = postgrest,
// before SVC_* ones so that those win, warning where both set a key to
// different values. In any other mode none of them would configure the
// server (chooseNaming has seen to that), and only PGRST_COMPAT_NAMES,
// which never counts, is warned about.
func (l *loader) readPGRSTEnv(env map[string]string, mode string) {
	if mode != CompatPostgREST {
		name := pgrstEnvPrefix + envSuffix("compat-names")
		if v, ok := env[name]; ok {
			l.readPGRSTOnly(name, envSuffix("compat-names"), v, "environment variable "+name)
		}
		return
	}
	l.readEnv(env, pgrstEnvPrefix)
	for _, name := range slices.Sorted(maps.Keys(env)) {
		suffix, ok := strings.CutPrefix(name, pgrstEnvPrefix)
		if !ok || !namesKey(suffix) {
			continue
		}
		if v, ok := env[envPrefix+suffix]; ok && v != env[name] {
			l.warn(name, "environment variable "+name, fmt.Sprintf(
				"environment variables %s and %s set different values; %s wins", name, envPrefix+suffix, envPrefix+suffix))
		}
	}
}

// namesKey reports whether an environment variable suffix names a key the
// SVC_ and PGRST_ variables both set (compat-names aside).
func namesKey(suffix string) bool {
	if suffix == envSuffix("compat-names") {
		return false
	}
	_, alias := aliasByEnv[suffix]
	_, unimplemented := unsupportedByEnv[suffix]
	return keyByEnv[suffix] != nil || alias || unimplemented
}

// readPGRSTOnly handles the PGRST_* variables that do not map to a key as
// SVC_* ones do, and reports whether name was one of them:
// PGRST_APP_SETTINGS_<name> sets app.settings.<name> as in PostgREST, and
// PGRST_COMPAT_NAMES cannot choose the naming that decides it is read.
func (l *loader) readPGRSTOnly(name, suffix, value, src string) bool {
	if s, ok := strings.CutPrefix(suffix, envSuffix(appSettingsPrefix)); ok && s != "" {
		l.app[s] = value
		return true
	}
	if suffix == envSuffix("compat-names") {
		l.warn(name, src, fmt.Sprintf("%s is ignored: compat-names decides whether PGRST_* variables are read; "+
			"set %s, the config file or --compat-names instead", src, envName("compat-names")))
		return true
	}
	return false
}

// resolveAliases lets a value given under an older name stand for the
// current one where the current name is not set.
func (l *loader) resolveAliases() {
	for name, a := range l.aliased {
		if _, ok := l.set[name]; !ok {
			l.set[name] = a
		}
	}
}

// judgeUnimplemented warns about each of PostgREST's unimplemented keys
// that was set, once, at the value that won, and returns an error for each
// set to a value a client would notice being ignored.
func (l *loader) judgeUnimplemented() []error {
	var errs []error
	for _, u := range unimplementedKeys {
		a, ok := l.unimplemented[u.name]
		if !ok {
			continue
		}
		value := strings.TrimSpace(a.value)
		if u.harmless == nil || slices.ContainsFunc(u.harmless, func(h string) bool { return strings.EqualFold(h, value) }) {
			at := u.name
			if v, ok := strings.CutPrefix(a.source, "environment variable "); ok {
				at = v // what the user has to change
			}
			l.warn(at, a.source, fmt.Sprintf("configuration key %q is not implemented by SVC and is ignored (%s): %s",
				u.name, a.source, u.instead))
			continue
		}
		errs = append(errs, fmt.Errorf("%s = %q (%s): not implemented by SVC, and ignoring it would change what clients see "+
			"(%s); remove it or set it to %s", u.name, a.value, a.source, u.instead, strings.Join(u.harmless, " or ")))
	}
	return errs
}
