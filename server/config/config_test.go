package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// writeConf writes content to svc.conf in a fresh temporary directory.
func writeConf(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "svc.conf")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDefault(t *testing.T) {
	t.Parallel()
	want := &Config{
		DBURI:                         "postgresql://",
		DBSchemas:                     []string{"public"},
		DBAnonRole:                    "",
		DBExtraSearchPath:             []string{"public"},
		DBPool:                        10,
		DBPoolAcquisitionTimeout:      10 * time.Second,
		DBPoolMaxLifetime:             1800 * time.Second,
		DBPoolMaxIdletime:             30 * time.Second,
		DBChannel:                     "",
		DBChannelEnabled:              true,
		DBMaxRows:                     0,
		DBPlanEnabled:                 false,
		DBTxEnd:                       "commit",
		DBConfig:                      true,
		JWTRoleClaimKey:               ".role",
		JWTCacheMaxEntries:            1000,
		JWTCacheMaxBytes:              16 << 20,
		ServerShapeCacheMaxEntries:    1024,
		ServerShapeCacheMaxBytes:      16 << 20,
		ServerHost:                    "!4",
		ServerPort:                    3000,
		ServerCORSAllowedOrigins:      []string{},
		ServerUnixSocketMode:          0o660,
		ServerMaxBodyBytes:            8 << 20,
		ServerMaxLinesBodyBytes:       256 << 20,
		ServerGCHeadroom:              16 << 20,
		ServerMaxHeaderBytes:          1 << 20,
		ServerMaxURLBytes:             64 << 10,
		RequestMaxFilters:             256,
		RequestMaxSelectItems:         512,
		RequestMaxEmbedDepth:          16,
		RequestMaxEmbeds:              32,
		RequestMaxJSONPathDepth:       32,
		RequestMaxJSONPathSteps:       256,
		DBPoolCancelTimeout:           10 * time.Second,
		RequestMaxLogicDepth:          16,
		ServerReadTimeout:             60 * time.Second,
		ServerIdleTimeout:             120 * time.Second,
		DBPreparedStatements:          true,
		DBStatementsMaxBytes:          32 << 20,
		DBRowTypesMaxBytes:            16 << 20,
		ServerStreamSendTimeout:       10 * time.Second,
		ServerResponseBufferBytes:     1 << 20,
		ServerResponseBuffersMaxBytes: 64 << 20,
		DBReplicaURIs:                 []string{},
		DBReplicaPool:                 10,
		DBReplicaMaxLag:               5 * time.Second,
		LogLevel:                      "error",
		LogFormat:                     "text",
		LogQuery:                      "disabled",
		ClientErrorVerbosity:          "verbose",
		AdminServerPort:               -1,
		OpenAPIMode:                   "follow-privileges",
		OpenAPICacheMaxBytes:          32 << 20,
		OpenAPIVersion:                "2.0",
		URLUseLegacyTargetNames:       true,
		Snapshot:                      "",
		CompatNames:                   "svc",
		AppSettings:                   map[string]string{},
	}
	if got := Default(); !reflect.DeepEqual(got, want) {
		t.Errorf("Default() = %+v\nwant %+v", got, want)
	}
	got, warnings, err := Load(Sources{})
	if err != nil || len(warnings) != 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("Load(empty) = %+v, %v, %v; want defaults", got, warnings, err)
	}
}

func TestKeyTable(t *testing.T) {
	t.Parallel()
	env := map[string]string{}
	for _, k := range keys {
		if k.doc == "" {
			t.Errorf("%s: no doc", k.name)
		}
		if other, dup := env[envName(k.name)]; dup {
			t.Errorf("%s and %s share environment variable %s", k.name, other, envName(k.name))
		}
		env[envName(k.name)] = k.name
	}
	for _, u := range unimplementedKeys {
		if keyByName[u.name] != nil || aliases[u.name] != "" {
			t.Errorf("%s is both implemented and in unimplementedKeys", u.name)
		}
	}
	for alias, name := range aliases {
		if keyByName[name] == nil || keyByName[alias] != nil {
			t.Errorf("alias %s -> %s: the alias must be unknown and the key implemented", alias, name)
		}
	}
	got := Keys()
	if len(got) != len(keys) || !strings.HasPrefix(strings.Join(got, " "), "admin-server-host admin-server-port client-error-verbosity compat-names db-aggregates-enabled") {
		t.Errorf("Keys() = %v", got)
	}
	if doc, def, ok := Describe("db-pool"); !ok || def != "10" || doc == "" {
		t.Errorf("Describe(db-pool) = %q, %q, %v", doc, def, ok)
	}
	if _, _, ok := Describe("no-such-key"); ok {
		t.Error("Describe(no-such-key) found a key")
	}
	for _, u := range unimplementedKeys {
		if _, _, ok := Describe(u.name); ok {
			t.Errorf("Describe(%s) found an unimplemented key", u.name)
		}
	}
}

func TestParseFile(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PGUSER": "alice", "EMPTY": ""}
	tests := []struct {
		name, content string
		want          []fileEntry
	}{
		{"quoted", `db-uri = "postgres://x/db"`, []fileEntry{{"db-uri", "postgres://x/db", 1}}},
		{"no spaces", `db-pool=10`, []fileEntry{{"db-pool", "10", 1}}},
		{"bare number", "db-pool = 10", []fileEntry{{"db-pool", "10", 1}}},
		{"bare boolean", "db-channel-enabled = false", []fileEntry{{"db-channel-enabled", "false", 1}}},
		{"bare word", "log-level = info", []fileEntry{{"log-level", "info", 1}}},
		{"escapes", `db-anon-role = "a\"b\\c"`, []fileEntry{{"db-anon-role", `a"b\c`, 1}}},
		{"empty string", `db-anon-role = ""`, []fileEntry{{"db-anon-role", "", 1}}},
		{"comments and blanks", "# header\n\n   \n  # indented\ndb-pool = 5 # trailing\n",
			[]fileEntry{{"db-pool", "5", 5}}},
		{"comment right after bare value", "db-pool = 5#x", []fileEntry{{"db-pool", "5", 1}}},
		{"hash inside quotes", `db-uri = "postgres://u:p#w@h/db" # real comment`,
			[]fileEntry{{"db-uri", "postgres://u:p#w@h/db", 1}}},
		{"interpolation", `db-uri = "postgres://$(PGUSER)@h/$(EMPTY)db$(UNSET)"`,
			[]fileEntry{{"db-uri", "postgres://alice@h/db", 1}}},
		{"malformed interpolation stays literal", `db-uri = "p$(x y)$(1A)$(PGUSER"`,
			[]fileEntry{{"db-uri", "p$(x y)$(1A)$(PGUSER", 1}}},
		{"no interpolation in bare value", `db-anon-role = $(PGUSER)`,
			[]fileEntry{{"db-anon-role", "$(PGUSER)", 1}}},
		{"app settings key", `app.settings.jwt_Key = "s"`, []fileEntry{{"app.settings.jwt_Key", "s", 1}}},
		{"CRLF and BOM", "\uFEFFdb-pool = 4\r\nserver-port = \"80\"\r\n",
			[]fileEntry{{"db-pool", "4", 1}, {"server-port", "80", 2}}},
		{"tabs", "\tdb-pool\t=\t4\t", []fileEntry{{"db-pool", "4", 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseFile("svc.conf", tt.content, env)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseFileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, content, want string }{
		{"no equals", "db-pool 10", "config file svc.conf, line 1: expected key = value"},
		{"no key", "# c\n\n= 10", "config file svc.conf, line 3: expected key = value"},
		{"space in key", "db pool = 10", "config file svc.conf, line 1: expected key = value"},
		{"missing value", "db-pool =", `config file svc.conf, line 1: expected a value after "db-pool ="`},
		{"missing value before comment", "db-pool = # none", `config file svc.conf, line 1: expected a value after "db-pool ="`},
		{"unterminated", "db-pool = 1\ndb-uri = \"postgres://", "config file svc.conf, line 2: unterminated quoted string"},
		{"backslash at end", `db-uri = "abc\`, "config file svc.conf, line 1: unterminated quoted string"},
		{"unknown escape", `db-uri = "a\nb"`, `config file svc.conf, line 1: unknown escape \n in quoted string (only \" and \\ are escapes)`},
		{"text after quoted", `db-uri = "a" b`, `config file svc.conf, line 1: unexpected "b" after the value (quote values containing spaces)`},
		{"space in bare", "db-anon-role = web anon", `config file svc.conf, line 1: unexpected "anon" after the value (quote values containing spaces)`},
		{"stray quote", `db-anon-role = web"`, `config file svc.conf, line 1: unexpected '"' inside unquoted value web"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseFile("svc.conf", tt.content, nil)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v\nwant    %s", err, tt.want)
			}
		})
	}
}

func TestLoadFileErrors(t *testing.T) {
	t.Parallel()
	path := writeConf(t, "db-pool = 1\n\nbad line\n")
	_, _, err := Load(Sources{File: path})
	if want := "config file " + path + ", line 3: expected key = value"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
	missing := filepath.Join(t.TempDir(), "none.conf")
	_, _, err = Load(Sources{File: missing})
	if want := "config file " + missing + ": no such file or directory"; err == nil || err.Error() != want || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error = %v, want %s (and fs.ErrNotExist)", err, want)
	}
}

func TestLoadAllKeys(t *testing.T) {
	t.Parallel()
	path := writeConf(t, `
db-uri = "postgres://$(DBUSER)@db/app"
db-schemas = " api , v2 "
db-anon-role = "web_anon"
db-extra-search-path = ""
db-pool = 3
db-pool-acquisition-timeout = "7"
db-pool-cancel-timeout = 3
db-pool-max-lifetime = 600
db-pool-max-idletime = 5
db-channel = "reload"
db-channel-enabled = "false"
db-max-rows = 1000
db-plan-enabled = true
db-tx-end = "rollback-allow-override"
db-pre-request = "api.check_request"
db-config = true
db-pre-config = "api.pre_config"
jwt-secret = "a-secret-of-at-least-thirty-two-characters"
jwt-secret-is-base64 = false
jwt-aud = "svc"
jwt-role-claim-key = ".app_metadata.role"
jwt-jwks-url = "https://issuer.example/jwks.json"
jwt-cache-max-entries = 50
jwt-cache-max-bytes = 65536
server-shape-cache-max-entries = 100
server-shape-cache-max-bytes = 200000
server-host = "localhost"
server-port = 8080
server-cors-allowed-origins = "https://app.example, http://localhost:5173"
server-unix-socket = "/run/svc/svc.sock"
server-max-lines-body-bytes = 5000
server-max-body-bytes = 1000
server-max-header-bytes = 8192
server-max-url-bytes = 4096
request-max-filters = 10
request-max-select-items = 20
request-max-embed-depth = 3
request-max-embeds = 5
request-max-json-path-depth = 4
request-max-json-path-steps = 12
request-max-logic-depth = 2
server-read-timeout = 30
server-write-timeout = 90
server-idle-timeout = 10
server-unix-socket-mode = "0600"
server-reuseport = true
server-gc-headroom = 1048576
db-channel-uri = "postgres://bob@db-direct/app"
db-prepared-statements = false
db-prepared-statements-max-bytes = 300000
db-session-row-types-max-bytes = 2000000
server-response-buffer-bytes = 100000
server-stream-send-timeout = 7
server-response-buffers-max-bytes = 3000000
db-replica-uris = "postgres://bob@replica1/app,postgres://bob@replica2/app"
db-replica-pool = 4
db-replica-max-lag = 2
log-level = "INFO"
log-format = "JSON"
log-query = "main-query"
client-error-verbosity = "minimal"
server-timing-enabled = true
server-trace-header = "X-Request-Id"
admin-server-port = 3001
admin-server-host = "127.0.0.1"
openapi-mode = "IGNORE-privileges"
openapi-security-active = true
openapi-server-proxy-uri = "https://api.example:8443/v1"
openapi-cache-max-bytes = 4096
openapi-version = "3.1"
openapi-ui-path = "/docs/"
db-root-spec = "root"
url-use-legacy-target-names = false
snapshot = "api.msgpack"
compat-names = "postgrest"
app.settings.jwt_secret = "s3cr\"et"
app.settings.Other = 1
`)
	got, warnings, err := Load(Sources{File: path, Env: []string{"DBUSER=bob"}})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("Load: %v, warnings %v", err, warnings)
	}
	want := &Config{
		DBURI: "postgres://bob@db/app", DBSchemas: []string{"api", "v2"}, DBAnonRole: "web_anon",
		DBExtraSearchPath: []string{}, DBPool: 3, DBPoolAcquisitionTimeout: 7 * time.Second, DBPoolCancelTimeout: 3 * time.Second, DBPoolMaxLifetime: 600 * time.Second, DBPoolMaxIdletime: 5 * time.Second,
		DBChannel: "reload", DBChannelEnabled: false, DBMaxRows: 1000, DBPlanEnabled: true,
		DBTxEnd: "rollback-allow-override", DBPreRequest: "api.check_request", DBConfig: true, DBPreConfig: "api.pre_config",
		JWTSecret: "a-secret-of-at-least-thirty-two-characters", JWTAud: "svc",
		JWTRoleClaimKey: ".app_metadata.role", JWTJWKSURL: "https://issuer.example/jwks.json", JWTCacheMaxEntries: 50, JWTCacheMaxBytes: 65536, ServerShapeCacheMaxEntries: 100, ServerShapeCacheMaxBytes: 200000,
		ServerHost: "localhost", ServerPort: 8080,
		ServerCORSAllowedOrigins: []string{"https://app.example", "http://localhost:5173"},
		ServerMaxBodyBytes:       1000, ServerMaxLinesBodyBytes: 5000, ServerMaxHeaderBytes: 8192, ServerReadTimeout: 30 * time.Second,
		ServerMaxURLBytes: 4096, RequestMaxFilters: 10, RequestMaxSelectItems: 20, RequestMaxEmbedDepth: 3,
		RequestMaxEmbeds: 5, RequestMaxJSONPathDepth: 4, RequestMaxJSONPathSteps: 12, RequestMaxLogicDepth: 2,
		ServerWriteTimeout: 90 * time.Second, ServerIdleTimeout: 10 * time.Second,
		ServerUnixSocket: "/run/svc/svc.sock", ServerUnixSocketMode: 0o600, ServerReuseport: true, ServerGCHeadroom: 1 << 20,
		DBChannelURI: "postgres://bob@db-direct/app", DBPreparedStatements: false, DBStatementsMaxBytes: 300000, DBRowTypesMaxBytes: 2000000, ServerResponseBufferBytes: 100000, ServerStreamSendTimeout: 7 * time.Second, ServerResponseBuffersMaxBytes: 3000000, LogLevel: "info",
		DBReplicaURIs: []string{"postgres://bob@replica1/app", "postgres://bob@replica2/app"}, DBReplicaPool: 4, DBReplicaMaxLag: 2 * time.Second,
		Snapshot:  filepath.Join(filepath.Dir(path), "api.msgpack"), // beside the file
		LogFormat: "json", LogQuery: "main-query", ClientErrorVerbosity: "minimal", ServerTimingEnabled: true, ServerTraceHeader: "X-Request-Id",
		AdminServerPort: 3001, AdminServerHost: "127.0.0.1",
		OpenAPIMode: "ignore-privileges", OpenAPISecurityActive: true, OpenAPIServerProxyURI: "https://api.example:8443/v1", OpenAPICacheMaxBytes: 4096, DBRootSpec: "root",
		OpenAPIVersion: "3.1", OpenAPIUIPath: "/docs",
		CompatNames: "postgrest", AppSettings: map[string]string{"jwt_secret": `s3cr"et`, "Other": "1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestPrecedence(t *testing.T) {
	t.Parallel()
	path := writeConf(t, "db-pool = 1\ndb-max-rows = 1\nserver-port = 1\nlog-level = crit\napp.settings.a = file\napp.settings.b = file\n")
	env := []string{"SVC_DB_MAX_ROWS=2", "SVC_SERVER_PORT=2", "SVC_LOG_LEVEL=warn", "HOME=/root"}
	flags := map[string]string{"server-port": "3", "log-level": "debug", "app.settings.b": "flag"}
	tests := []struct {
		name  string
		src   Sources
		check func(c *Config) bool
	}{
		{"file only", Sources{File: path}, func(c *Config) bool {
			return c.DBPool == 1 && c.DBMaxRows == 1 && c.ServerPort == 1 && c.LogLevel == "crit"
		}},
		{"env over file", Sources{File: path, Env: env}, func(c *Config) bool {
			return c.DBPool == 1 && c.DBMaxRows == 2 && c.ServerPort == 2 && c.LogLevel == "warn"
		}},
		{"flags over env and file", Sources{File: path, Env: env, Flags: flags}, func(c *Config) bool {
			return c.DBPool == 1 && c.DBMaxRows == 2 && c.ServerPort == 3 && c.LogLevel == "debug" &&
				c.AppSettings["a"] == "file" && c.AppSettings["b"] == "flag"
		}},
		{"flags over file without env", Sources{File: path, Flags: flags}, func(c *Config) bool {
			return c.DBMaxRows == 1 && c.ServerPort == 3
		}},
		{"empty env value counts as set", Sources{Env: []string{"SVC_DB_ANON_ROLE="}, Flags: map[string]string{}}, func(c *Config) bool {
			return c.DBAnonRole == ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, warnings, err := Load(tt.src)
			if err != nil || len(warnings) != 0 {
				t.Fatalf("Load: %v, warnings %v", err, warnings)
			}
			if !tt.check(c) {
				t.Errorf("unexpected result %+v", c)
			}
		})
	}
}

func TestOverriddenBadValueIsNotAnError(t *testing.T) {
	t.Parallel()
	path := writeConf(t, `db-pool = "abc"`)
	c, _, err := Load(Sources{File: path, Flags: map[string]string{"db-pool": "4"}})
	if err != nil || c.DBPool != 4 {
		t.Errorf("got %v, %v; want db-pool 4 from the flag", c, err)
	}
}

func TestListenAddr(t *testing.T) {
	t.Parallel()
	tests := []struct{ host, addr, network string }{
		{"!4", "0.0.0.0:3000", "tcp4"},
		{"*4", "0.0.0.0:3000", "tcp"},
		{"!6", "[::]:3000", "tcp6"},
		{"*6", "[::]:3000", "tcp"},
		{"*", "[::]:3000", "tcp"},
		{"localhost", "localhost:3000", "tcp"},
		{"127.0.0.1", "127.0.0.1:3000", "tcp"},
		{"::1", "[::1]:3000", "tcp"},
		{"[::1]", "[::1]:3000", "tcp"},
		{"", ":3000", "tcp"},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			t.Parallel()
			c := Default()
			c.ServerHost = tt.host
			if got := c.ListenAddr(); got != tt.addr {
				t.Errorf("ListenAddr() = %q, want %q", got, tt.addr)
			}
			if got := c.ListenNetwork(); got != tt.network {
				t.Errorf("ListenNetwork() = %q, want %q", got, tt.network)
			}
		})
	}
}

func TestTxRollback(t *testing.T) {
	t.Parallel()
	cases := []struct {
		txEnd, prefer     string
		rollback, applied bool
	}{
		{"commit", "", false, false},
		{"commit", "rollback", false, false},
		{"commit-allow-override", "rollback", true, true},
		{"commit-allow-override", "commit", false, true},
		{"rollback", "commit", true, false},
		{"rollback-allow-override", "commit", false, true},
		{"rollback-allow-override", "", true, false},
	}
	for _, c := range cases {
		cfg := &Config{DBTxEnd: c.txEnd}
		if rb, ap := cfg.TxRollback(c.prefer); rb != c.rollback || ap != c.applied {
			t.Errorf("db-tx-end %s, tx=%q: rollback %v applied %v, want %v %v", c.txEnd, c.prefer, rb, ap, c.rollback, c.applied)
		}
	}
}

func TestDatabaseSettings(t *testing.T) {
	t.Parallel()
	path := writeConf(t, "db-max-rows = 1\ndb-anon-role = file_anon\ndb-schemas = file\n")
	src := Sources{File: path, Env: []string{"SVC_DB_SCHEMAS=env"},
		Database:       map[string]string{"db-max-rows": "5", "db-schemas": "db1,db2", "db-uri": "postgres://elsewhere", "db-anon-role": "db_anon"},
		DatabasePrefix: "svc.",
		Flags:          map[string]string{"db-anon-role": "flag_anon"}}
	c, warnings, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	// The database overrides the file and the environment; flags win over it.
	if c.DBMaxRows != 5 || !reflect.DeepEqual(c.DBSchemas, []string{"db1", "db2"}) || c.DBAnonRole != "flag_anon" {
		t.Errorf("got max-rows %d, schemas %v, anon %q", c.DBMaxRows, c.DBSchemas, c.DBAnonRole)
	}
	if c.DBURI != "postgresql://" {
		t.Errorf("db-uri came from the database: %q", c.DBURI)
	}
	want := `configuration key "db-uri" cannot be set from the database and is ignored (database setting svc.db_uri)`
	if len(warnings) != 1 || warnings[0].Message != want {
		t.Errorf("warnings %v, want one: %s", warnings, want)
	}
	names := DatabaseSettings()
	if names["db_schemas"] != "db-schemas" || names["jwt_secret"] != "jwt-secret" || names["db_uri"] != "" {
		t.Errorf("DatabaseSettings() = %v", names)
	}
}
