// Package config owns SVC's configuration: the Config struct and its
// defaults, the table of keys (named as in PostgREST), loading them from a
// PostgREST-style file, SVC_* environment variables (and PGRST_* ones under
// compat-names = postgrest, which they choose when nothing else does:
// naming.go) and command-line flags (flags win over the
// environment, which wins over the file), and the validation and warning
// messages users see when a value is wrong, a key unknown, or one of
// PostgREST's that SVC does not implement (postgrest.go). It knows nothing
// of the command-line library: the command layer passes the flags the user
// set as a map.
package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"
)

// Config is SVC's configuration; field comments give the key each comes from.
type Config struct {
	DBURI                         string            // db-uri
	DBSchemas                     []string          // db-schemas
	DBAnonRole                    string            // db-anon-role; "" refuses anonymous requests
	DBExtraSearchPath             []string          // db-extra-search-path
	DBPool                        int               // db-pool
	DBPoolAcquisitionTimeout      time.Duration     // db-pool-acquisition-timeout (whole seconds)
	DBPoolCancelTimeout           time.Duration     // db-pool-cancel-timeout (SVC's addition, whole seconds)
	DBPoolMaxLifetime             time.Duration     // db-pool-max-lifetime (whole seconds)
	DBPoolMaxIdletime             time.Duration     // db-pool-max-idletime (whole seconds)
	DBChannel                     string            // db-channel
	DBChannelEnabled              bool              // db-channel-enabled
	DBMaxRows                     int               // db-max-rows; 0 = unlimited
	DBPlanEnabled                 bool              // db-plan-enabled
	DBAggregatesEnabled           bool              // db-aggregates-enabled
	DBTxEnd                       string            // db-tx-end
	DBConfig                      bool              // db-config: read svc.* settings of the authenticator role
	DBPreConfig                   string            // db-pre-config; "" for none
	DBPreRequest                  string            // db-pre-request; "" for none
	JWTSecret                     string            // jwt-secret
	JWTSecretIsBase64             bool              // jwt-secret-is-base64
	JWTAud                        string            // jwt-aud
	JWTRoleClaimKey               string            // jwt-role-claim-key
	JWTJWKSURL                    string            // jwt-jwks-url (SVC's addition)
	JWTCacheMaxEntries            int               // jwt-cache-max-entries; 0 disables the cache
	JWTCacheMaxBytes              int               // jwt-cache-max-bytes (SVC's addition); 0 disables the cache
	ServerShapeCacheMaxEntries    int               // server-shape-cache-max-entries; 0 disables the cache
	ServerShapeCacheMaxBytes      int               // server-shape-cache-max-bytes; 0 disables the cache
	ServerHost                    string            // server-host
	ServerPort                    int               // server-port
	ServerCORSAllowedOrigins      []string          // server-cors-allowed-origins; empty allows any origin
	ServerMaxBodyBytes            int               // server-max-body-bytes (SVC's addition)
	ServerMaxLinesBodyBytes       int               // server-max-lines-body-bytes (SVC's addition)
	ServerResponseBufferBytes     int               // server-response-buffer-bytes (SVC's addition)
	ServerResponseBuffersMaxBytes int               // server-response-buffers-max-bytes (SVC's addition)
	ServerMaxHeaderBytes          int               // server-max-header-bytes (SVC's addition)
	ServerMaxURLBytes             int               // server-max-url-bytes (SVC's addition)
	RequestMaxFilters             int               // request-max-filters (SVC's addition)
	RequestMaxSelectItems         int               // request-max-select-items (SVC's addition)
	RequestMaxEmbedDepth          int               // request-max-embed-depth (SVC's addition), 1 to 64
	RequestMaxEmbeds              int               // request-max-embeds (SVC's addition)
	RequestMaxJSONPathDepth       int               // request-max-json-path-depth (SVC's addition), 1 to 1000
	RequestMaxJSONPathSteps       int               // request-max-json-path-steps (SVC's addition)
	RequestMaxLogicDepth          int               // request-max-logic-depth (SVC's addition), 1 to 1000
	ServerReadTimeout             time.Duration     // server-read-timeout (SVC's addition); 0 for none
	ServerWriteTimeout            time.Duration     // server-write-timeout (SVC's addition); 0 for none
	ServerStreamSendTimeout       time.Duration     // server-stream-send-timeout (SVC's addition)
	ServerIdleTimeout             time.Duration     // server-idle-timeout (SVC's addition)
	ServerUnixSocket              string            // server-unix-socket; "" listens on TCP
	ServerUnixSocketMode          os.FileMode       // server-unix-socket-mode
	ServerReuseport               bool              // server-reuseport (SVC's addition)
	ServerGCHeadroom              int               // server-gc-headroom (SVC's addition), bytes; 0 for Go's own pacing
	DBChannelURI                  string            // db-channel-uri (SVC's addition); "" uses db-uri
	DBPreparedStatements          bool              // db-prepared-statements
	DBStatementsMaxBytes          int               // db-prepared-statements-max-bytes; 0 prepares nothing
	DBRowTypesMaxBytes            int               // db-session-row-types-max-bytes
	DBReplicaURIs                 []string          // db-replica-uris (SVC's addition); empty for none
	DBReplicaPool                 int               // db-replica-pool (SVC's addition), per replica
	DBReplicaMaxLag               time.Duration     // db-replica-max-lag (SVC's addition, whole seconds)
	LogLevel                      string            // log-level: crit, error, warn, info or debug
	LogFormat                     string            // log-format (SVC's addition): text or json
	LogQuery                      string            // log-query: disabled or main-query
	ClientErrorVerbosity          string            // client-error-verbosity: verbose or minimal
	ServerTimingEnabled           bool              // server-timing-enabled
	ServerTraceHeader             string            // server-trace-header; "" for none
	AdminServerPort               int               // admin-server-port; -1 (unset) runs no admin server, 0 picks a free port
	AdminServerHost               string            // admin-server-host; "" uses server-host
	OpenAPIMode                   string            // openapi-mode: follow-privileges, ignore-privileges or disabled
	OpenAPISecurityActive         bool              // openapi-security-active
	OpenAPIServerProxyURI         string            // openapi-server-proxy-uri; "" uses server-host and server-port
	OpenAPICacheMaxBytes          int               // openapi-cache-max-bytes (SVC's addition); 0 disables the cache
	OpenAPIVersion                string            // openapi-version (SVC's addition): "2.0" or "3.1", the root's default
	OpenAPIUIPath                 string            // openapi-ui-path (SVC's addition): "" serves no reference page
	DBRootSpec                    string            // db-root-spec; "" serves the built-in OpenAPI document
	URLUseLegacyTargetNames       bool              // url-use-legacy-target-names
	Snapshot                      string            // snapshot: a file, "db" or "db:<schema>"; "" introspects the live database
	CompatNames                   string            // compat-names (SVC's addition): svc or postgrest, a key of apierr.Namings
	AppSettings                   map[string]string // app.settings.<name>, keyed by <name>
	// Misspelt are the warnings about unknown names that resemble a key:
	// a key left at its default by a typo explains some
	// answers (a 404 for every table of a schema db-schemas was meant to
	// name), whose advice then names the typo rather than a reload.
	Misspelt []Misspelling
}

// Warning reports a configuration problem that does not stop loading, such
// as an unknown key.
type Warning struct {
	Key     string // the key (or, from the environment, the variable) at fault
	Source  string // where it was found, e.g. "config file svc.conf, line 2"
	Message string // the complete sentence to show the user
}

// Misspelling is the warning about an unknown name and the key it most
// resembles ("db-schemas" for PGRST_DB_SHEMAS).
type Misspelling struct {
	Warning
	Meant string
}

// Sources holds the inputs of Load, from lowest to highest precedence.
type Sources struct {
	File  string            // path of the config file, "" for none
	Env   []string          // os.Environ()-style "K=V" entries
	Flags map[string]string // key (e.g. "db-uri") -> value, only for flags the user set
	// Database holds in-database configuration (key -> value), read by the
	// server when db-config is on. It overrides the file and environment,
	// as in PostgREST; flags, given explicitly to this process, win over it.
	Database map[string]string
	// DatabasePrefix names database settings in messages, e.g. "svc.".
	DatabasePrefix string
}

// Default returns the configuration used when nothing is set.
func Default() *Config {
	c := &Config{AppSettings: map[string]string{}}
	for _, k := range keys {
		if err := k.set(c, k.def); err != nil {
			panic(fmt.Sprintf("config: default of %s: %v", k.name, err)) // a bad table entry
		}
	}
	return c
}

// Load builds the configuration from src over Default. Values are resolved
// first (the last source setting a key wins) and only then validated, so a
// bad value that a flag overrides does not stop the server. All bad values
// are reported together. Warnings are returned even with an error, since an
// unknown key often explains the error.
func Load(src Sources) (*Config, []Warning, error) {
	env := envMap(src.Env)
	l := &loader{set: map[string]assignment{}, aliased: map[string]assignment{},
		unimplemented: map[string]assignment{}, app: map[string]string{}}
	var entries []fileEntry
	if src.File != "" {
		var err error
		if entries, err = readFile(src.File, env); err != nil {
			return nil, nil, err
		}
		l.readFile(src.File, entries)
	}
	mode, namingErr := l.chooseNaming(namingSetting(src.File, entries, env, src.Flags), env, src.Flags)
	l.readPGRSTEnv(env, mode)
	l.readEnv(env, envPrefix)
	l.readDatabase(src.Database, src.DatabasePrefix)
	for _, name := range slices.Sorted(maps.Keys(src.Flags)) {
		l.assign(name, src.Flags[name], "flag --"+name)
	}
	l.resolveAliases()

	c := Default()
	errs := l.judgeUnimplemented()
	if namingErr != nil {
		errs = append(errs, namingErr)
	}
	for _, k := range keys {
		if a, ok := l.set[k.name]; ok {
			if err := k.set(c, a.value); err != nil {
				errs = append(errs, fmt.Errorf("%s = %q (%s): %w", k.name, a.value, a.source, err))
			}
		}
	}
	maps.Copy(c.AppSettings, l.app)
	c.Misspelt = l.misspelt
	if err := c.checkAdminPort(l.set["admin-server-port"].source); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, l.warnings, errors.Join(errs...)
	}
	return c, l.warnings, nil
}

// assignment is a raw value and where it came from, kept until validation.
type assignment struct{ value, source string }

// loader gathers assignments and warnings across the sources.
type loader struct {
	set map[string]assignment // implemented keys
	// aliased holds values given under PostgREST's older names, by the
	// current name; they count only where that name is not set.
	aliased map[string]assignment
	// unimplemented holds the last value of each of PostgREST's keys SVC
	// does not implement, judged once all sources are read.
	unimplemented map[string]assignment
	app           map[string]string // app.settings.<name>, by name
	warnings      []Warning
	misspelt      []Misspelling
}

// readFile assigns the file's entries, warning when a key is repeated
// because only the last line counts and the earlier one may be the intended.
// A relative snapshot path is taken relative to the file (snapshotPath).
func (l *loader) readFile(path string, entries []fileEntry) {
	seen := map[string]int{}
	for _, e := range entries {
		src := fmt.Sprintf("config file %s, line %d", path, e.line)
		if prev, ok := seen[e.key]; ok {
			l.warn(e.key, src, fmt.Sprintf("configuration key %q is set more than once in config file %s (lines %d and %d); line %d wins",
				e.key, path, prev, e.line, e.line))
		}
		seen[e.key] = e.line
		value := e.value
		if e.key == "snapshot" {
			value = snapshotPath(path, value)
		}
		l.assign(e.key, value, src)
	}
}

// assign routes a key from the file or a flag to its destination, or warns.
func (l *loader) assign(name, value, src string) {
	switch {
	case keyByName[name] != nil:
		l.set[name] = assignment{value, src}
	case aliases[name] != "":
		l.aliased[aliases[name]] = assignment{value, src}
	case strings.HasPrefix(name, appSettingsPrefix) && len(name) > len(appSettingsPrefix):
		l.app[name[len(appSettingsPrefix):]] = value
	case unimplementedKey(name) != nil:
		l.unimplemented[name] = assignment{value, src}
	case removedKeys[name] != "":
		l.warnRemoved(name, name, src)
	default:
		msg := fmt.Sprintf("unknown configuration key %q (%s)", name, src)
		s := closestKey(name)
		if s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		l.misspell(Warning{Key: name, Source: src, Message: msg}, s)
	}
}

// readEnv assigns the variables starting with prefix (SVC_, or PGRST_
// under compat-names = postgrest). Suggestions name variables, not keys,
// because the variable is what the user has to fix.
func (l *loader) readEnv(env map[string]string, prefix string) {
	for _, name := range slices.Sorted(maps.Keys(env)) {
		suffix, ok := strings.CutPrefix(name, prefix)
		if !ok || slices.Contains(envNotConfig, name) {
			continue
		}
		src := "environment variable " + name
		if prefix == pgrstEnvPrefix && l.readPGRSTOnly(name, suffix, env[name], src) {
			continue
		}
		if k := keyByEnv[suffix]; k != nil {
			l.assign(k.name, env[name], src)
			continue
		}
		if key, ok := aliasByEnv[suffix]; ok {
			l.assign(key, env[name], src)
			continue
		}
		if key, ok := unsupportedByEnv[suffix]; ok {
			l.assign(key, env[name], src)
			continue
		}
		if key, ok := removedByEnv[suffix]; ok {
			l.warnRemoved(name, key, src)
			continue
		}
		if strings.HasPrefix(suffix, envSuffix(appSettingsPrefix)) {
			l.warn(name, src, fmt.Sprintf("%s is ignored: app.settings.* can be set only in the config file or by flag", src))
			continue
		}
		guess := normalize(suffix)
		msg := fmt.Sprintf("unknown environment variable %s (no configuration key %q)", name, guess)
		meant := closestKey(guess)
		if meant != "" && !strings.HasPrefix(meant, appSettingsPrefix) {
			msg += fmt.Sprintf("; did you mean %s?", prefix+envSuffix(meant))
		} else {
			meant = ""
		}
		l.misspell(Warning{Key: name, Source: src, Message: msg}, meant)
	}
}

// misspell warns of an unknown name, which, when it resembles the key
// meant, is also kept in Config.Misspelt.
func (l *loader) misspell(w Warning, meant string) {
	l.warnings = append(l.warnings, w)
	if meant != "" {
		l.misspelt = append(l.misspelt, Misspelling{w, meant})
	}
}

func (l *loader) warn(key, src, msg string) {
	l.warnings = append(l.warnings, Warning{Key: key, Source: src, Message: msg})
}

// envMap turns "K=V" entries into a map; a later entry wins, and entries
// without "=" (which os.Environ never yields) are skipped.
func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// TxRollback decides whether a request's transaction ends in a rollback:
// db-tx-end sets it, and Prefer: tx= (prefer, "" when not sent) overrides
// it only where db-tx-end allows. The second result reports whether the
// preference was honoured.
func (c *Config) TxRollback(prefer string) (rollback, applied bool) {
	rollback = strings.HasPrefix(c.DBTxEnd, "rollback")
	if prefer != "" && strings.HasSuffix(c.DBTxEnd, "-allow-override") {
		return prefer == "rollback", true
	}
	return rollback, false
}
