package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// This file decides compat-names before anything else is read, since the
// naming decides whether PGRST_* variables count. A PostgREST deployment's
// variables are never ignored in silence: when nothing sets compat-names
// they choose PostgREST's names (and say so), and when compat-names = svc
// is set on purpose while they would configure the server, loading fails
// naming them and the setting that would read them.

// namingSetting is compat-names as the file, SVC_COMPAT_NAMES and the
// flags set it, in that order of precedence, before validation; its source
// is "" when none of them sets it. It cannot come from PGRST_* variables,
// which it decides about, or from the database, read later still.
func namingSetting(path string, entries []fileEntry, env, flags map[string]string) assignment {
	const key = "compat-names"
	var a assignment
	for _, e := range entries {
		if e.key == key {
			a = assignment{e.value, fmt.Sprintf("config file %s, line %d", path, e.line)}
		}
	}
	if v, ok := env[envName(key)]; ok {
		a = assignment{v, "environment variable " + envName(key)}
	}
	if v, ok := flags[key]; ok {
		a = assignment{v, "flag --" + key}
	}
	return a
}

// chooseNaming returns the naming the PGRST_* variables are read under,
// given compat-names as set (namingSetting). Unset, it is postgrest when
// PGRST_* variables would configure the server, recorded as the value of
// compat-names with a warning naming them, and svc otherwise. Set to svc,
// it is an error when some of them would configure the server under
// postgrest, since they would be ignored.
func (l *loader) chooseNaming(setting assignment, env, flags map[string]string) (string, error) {
	mode := strings.ToLower(strings.TrimSpace(setting.value))
	vars := pgrstVariables(env)
	if setting.source == "" {
		if len(vars) == 0 {
			return NamingModes[0], nil
		}
		src := "environment variable" + plural(len(vars)) + " " + strings.Join(vars, ", ")
		l.set["compat-names"] = assignment{CompatPostgREST, src}
		l.warn("compat-names", src, fmt.Sprintf("compat-names = %s chosen: PostgREST's %s %s set and nothing sets compat-names, "+
			"so clients get PostgREST's names (PGRST error codes, application/vnd.pgrst.* media types) and the channel is pgrst; "+
			"set compat-names = %s to say so, or compat-names = %s for SVC's names (with SVC_* variables instead)",
			CompatPostgREST, src, isAre(vars), CompatPostgREST, NamingModes[0]))
		return CompatPostgREST, nil
	}
	if mode != NamingModes[0] {
		return mode, nil
	}
	var ignored, instead []string
	for _, name := range vars {
		if other, shadowed := svcCounterpart(name, env, flags); !shadowed {
			ignored, instead = append(ignored, name), append(instead, other)
		}
	}
	if len(ignored) == 0 {
		return mode, nil
	}
	them := "them"
	if len(ignored) == 1 {
		them = "it"
	}
	return mode, fmt.Errorf("PostgREST's environment %s %s %s set, and compat-names = %s (%s) does not read %s: "+
		"set compat-names = %s to read %s, or unset %s and set %s instead",
		"variable"+plural(len(ignored)), strings.Join(ignored, ", "), isAre(ignored), setting.value, setting.source, them,
		CompatPostgREST, them, them, strings.Join(instead, ", "))
}

// pgrstVariables are the PGRST_* variables of env that would configure
// the server under compat-names = postgrest, sorted: those naming a key
// (current, older or unimplemented) and PGRST_APP_SETTINGS_<name>. Others
// (a misspelt one, PGRST_COMPAT_NAMES) would not, so they decide nothing.
func pgrstVariables(env map[string]string) []string {
	var vars []string
	for _, name := range slices.Sorted(maps.Keys(env)) {
		suffix, ok := strings.CutPrefix(name, pgrstEnvPrefix)
		if !ok {
			continue
		}
		app, isApp := strings.CutPrefix(suffix, envSuffix(appSettingsPrefix))
		if namesKey(suffix) || (isApp && app != "") {
			vars = append(vars, name)
		}
	}
	return vars
}

// svcCounterpart is how to set under SVC's names what the PGRST_* variable
// name sets, and whether an SVC_* variable or a flag already sets it (it
// would then be overridden under PostgREST's names too, so ignoring it
// changes nothing).
func svcCounterpart(name string, env, flags map[string]string) (string, bool) {
	suffix := strings.TrimPrefix(name, pgrstEnvPrefix)
	if app, ok := strings.CutPrefix(suffix, envSuffix(appSettingsPrefix)); ok {
		return appSettingsPrefix + app + " in the config file", false
	}
	key := ""
	switch {
	case keyByEnv[suffix] != nil:
		key = keyByEnv[suffix].name
	case aliasByEnv[suffix] != "":
		key = aliases[aliasByEnv[suffix]]
	default:
		key = unsupportedByEnv[suffix]
	}
	_, byEnv := env[envName(key)]
	_, byOldEnv := env[envPrefix+suffix]
	_, byFlag := flags[key]
	return envName(key), byEnv || byOldEnv || byFlag
}

// isAre is the verb for list as a subject.
func isAre(list []string) string {
	if len(list) > 1 {
		return "are"
	}
	return "is"
}
