package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestPostgREST12File loads a PostgREST 12 deployment's file and
// environment unchanged, with compat-names = postgrest given as SVC's own
// variable: every key is read, the alias too, and the two keys SVC does
// not implement are reported once each, as harmless.
func TestPostgREST12File(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "postgrest12.conf")
	got, warnings, err := Load(Sources{File: path, Env: []string{
		"SVC_COMPAT_NAMES=postgrest",
		"PGRST_DB_URI=postgres://authenticator@db:5432/app",
		"PGRST_SERVER_PORT=8080",
		"APP_NAME=shop",
		"PATH=/usr/bin",
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Warning{
		{"jwt-cache-max-lifetime", "config file " + path + ", line 29",
			`configuration key "jwt-cache-max-lifetime" is not implemented by SVC and is ignored (config file ` + path +
				`, line 29): SVC caches verified tokens until they expire (at most five minutes), at most jwt-cache-max-entries of them in at most jwt-cache-max-bytes`},
		{"db-pool-automatic-recovery", "config file " + path + ", line 16",
			`configuration key "db-pool-automatic-recovery" is not implemented by SVC and is ignored (config file ` + path +
				`, line 16): SVC always reconnects, answering 503 with Retry-After while the database is away`},
	}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings:\n got %q\nwant %q", warnings, want)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"db-uri", got.DBURI, "postgres://authenticator@db:5432/app"},
		{"db-schemas (as db-schema)", got.DBSchemas, []string{"test", "other"}},
		{"db-anon-role", got.DBAnonRole, "web_anon"},
		{"db-max-rows", got.DBMaxRows, 1000},
		{"db-plan-enabled", got.DBPlanEnabled, true},
		{"db-pool-max-idletime", got.DBPoolMaxIdletime, 30 * time.Second},
		{"db-channel (unset: the naming's)", got.DBChannel, ""},
		{"jwt-secret", got.JWTSecret, "a-postgrest-secret-of-more-than-32-chars"},
		{"server-port (PGRST_SERVER_PORT)", got.ServerPort, 8080},
		{"server-trace-header", got.ServerTraceHeader, "X-Request-Id"},
		{"compat-names", got.CompatNames, "postgrest"},
		{"app.settings.greeting", got.AppSettings, map[string]string{"greeting": "hello from shop"}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

// TestPGRSTEnvironment shows where PGRST_* variables stand: read under
// compat-names = postgrest, which they choose when nothing sets it, above
// the file, below SVC_* variables (with a warning when the two disagree),
// the database and flags.
func TestPGRSTEnvironment(t *testing.T) {
	t.Parallel()
	file := writeConf(t, "db-anon-role = \"from_file\"\ndb-max-rows = 7")
	tests := []struct {
		name     string
		file     string
		env      []string
		flags    map[string]string
		database map[string]string
		role     string
		warnings []string // messages
	}{
		{name: "choosing compat-names when nothing sets it", file: file, env: []string{"PGRST_DB_ANON_ROLE=pgrst"},
			role: "pgrst", warnings: []string{"compat-names = postgrest chosen: PostgREST's environment variable PGRST_DB_ANON_ROLE is set " +
				"and nothing sets compat-names, so clients get PostgREST's names (PGRST error codes, application/vnd.pgrst.* media types) " +
				"and the channel is pgrst; set compat-names = postgrest to say so, or compat-names = svc for SVC's names (with SVC_* variables instead)"}},
		{name: "under compat-names = svc when SVC_ sets the same", file: file,
			env: []string{"SVC_COMPAT_NAMES=svc", "PGRST_DB_ANON_ROLE=pgrst", "SVC_DB_ANON_ROLE=svc"}, role: "svc"},
		{name: "under compat-names = svc when a flag sets the same", file: writeConf(t, `compat-names = "svc"`),
			env: []string{"PGRST_DB_SCHEMA=a"}, flags: map[string]string{"db-schemas": "b"}},
		{name: "PGRST_COMPAT_NAMES is no setting of compat-names", env: []string{"PGRST_COMPAT_NAMES=postgrest", "PGRST_DB_SHEMAS=a"},
			warnings: []string{"environment variable PGRST_COMPAT_NAMES is ignored: compat-names decides whether PGRST_* " +
				"variables are read; set SVC_COMPAT_NAMES, the config file or --compat-names instead"}},
		{name: "over the file", file: file, env: []string{"SVC_COMPAT_NAMES=postgrest", "PGRST_DB_ANON_ROLE=pgrst"},
			role: "pgrst"},
		{name: "compat-names from the file", file: writeConf(t, `compat-names = "postgrest"`),
			env: []string{"PGRST_DB_ANON_ROLE=pgrst"}, role: "pgrst"},
		{name: "compat-names from a flag", env: []string{"PGRST_DB_ANON_ROLE=pgrst"},
			flags: map[string]string{"compat-names": "postgrest"}, role: "pgrst"},
		{name: "under SVC_", file: file,
			env:  []string{"SVC_COMPAT_NAMES=postgrest", "PGRST_DB_ANON_ROLE=pgrst", "SVC_DB_ANON_ROLE=svc"},
			role: "svc", warnings: []string{"environment variables PGRST_DB_ANON_ROLE and SVC_DB_ANON_ROLE set different values; SVC_DB_ANON_ROLE wins"}},
		{name: "same value both ways", env: []string{"SVC_COMPAT_NAMES=postgrest", "PGRST_DB_ANON_ROLE=x", "SVC_DB_ANON_ROLE=x"},
			role: "x"},
		{name: "under the database", env: []string{"SVC_COMPAT_NAMES=postgrest", "PGRST_DB_ANON_ROLE=pgrst"},
			database: map[string]string{"db-anon-role": "db"}, role: "db"},
		{name: "under flags", env: []string{"SVC_COMPAT_NAMES=postgrest", "PGRST_DB_ANON_ROLE=pgrst"},
			flags: map[string]string{"db-anon-role": "flag"}, role: "flag"},
		{name: "alias", env: []string{"SVC_COMPAT_NAMES=postgrest", "PGRST_DB_SCHEMA=a"}, role: ""},
		{name: "PGRST_COMPAT_NAMES cannot switch", env: []string{"SVC_COMPAT_NAMES=postgrest", "PGRST_COMPAT_NAMES=svc"},
			warnings: []string{"environment variable PGRST_COMPAT_NAMES is ignored: compat-names decides whether PGRST_* " +
				"variables are read; set SVC_COMPAT_NAMES, the config file or --compat-names instead"}},
		{name: "unknown", env: []string{"SVC_COMPAT_NAMES=postgrest", "PGRST_DB_SHEMAS=a"},
			warnings: []string{`unknown environment variable PGRST_DB_SHEMAS (no configuration key "db-shemas"); did you mean PGRST_DB_SCHEMAS?`}},
		{name: "unimplemented", env: []string{"SVC_COMPAT_NAMES=postgrest", "PGRST_JWT_CACHE_MAX_LIFETIME=3600"},
			warnings: []string{`configuration key "jwt-cache-max-lifetime" is not implemented by SVC and is ignored ` +
				`(environment variable PGRST_JWT_CACHE_MAX_LIFETIME): SVC caches verified tokens until they expire (at most five minutes), at most jwt-cache-max-entries of them in at most jwt-cache-max-bytes`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, warnings, err := Load(Sources{File: tt.file, Env: tt.env, Flags: tt.flags, Database: tt.database, DatabasePrefix: "pgrst."})
			if err != nil {
				t.Fatal(err)
			}
			if c.DBAnonRole != tt.role {
				t.Errorf("db-anon-role = %q, want %q", c.DBAnonRole, tt.role)
			}
			var msgs []string
			for _, w := range warnings {
				msgs = append(msgs, w.Message)
			}
			if !reflect.DeepEqual(msgs, tt.warnings) {
				t.Errorf("warnings:\n got %q\nwant %q", msgs, tt.warnings)
			}
		})
	}
}

// TestPGRSTRefused: compat-names = svc set on purpose while PGRST_*
// variables would configure the server stops loading, naming each of
// them, where compat-names was set, and what to set instead.
func TestPGRSTRefused(t *testing.T) {
	t.Parallel()
	file := writeConf(t, "db-schemas = \"api\"\ncompat-names = \"svc\"")
	_, _, err := Load(Sources{File: file, Env: []string{"PGRST_DB_URI=postgres://app@db/app", "PGRST_SERVER_PORT=8080",
		"PGRST_DB_SCHEMAS=api", "SVC_SERVER_PORT=3001", "PGRST_APP_SETTINGS_jwt_exp=60"}})
	want := "PostgREST's environment variables PGRST_APP_SETTINGS_jwt_exp, PGRST_DB_SCHEMAS, PGRST_DB_URI are set, " +
		"and compat-names = svc (config file " + file + ", line 2) does not read them: set compat-names = postgrest to read them, " +
		"or unset them and set app.settings.jwt_exp in the config file, SVC_DB_SCHEMAS, SVC_DB_URI instead"
	if err == nil || err.Error() != want {
		t.Errorf("error:\n got %v\nwant %s", err, want)
	}
	_, _, err = Load(Sources{Env: []string{"PGRST_DB_URI=postgres://app@db/app"}, Flags: map[string]string{"compat-names": "svc"}})
	if want := "PostgREST's environment variable PGRST_DB_URI is set, and compat-names = svc (flag --compat-names) does not read it: set compat-names = postgrest to read it, or unset it and set SVC_DB_URI instead"; err == nil ||
		err.Error() != want {
		t.Errorf("error:\n got %v\nwant %s", err, want)
	}
}

// TestPGRSTAppSettings reads PGRST_APP_SETTINGS_<name> as PostgREST
// does: the name kept as written, the file's value overridden.
func TestPGRSTAppSettings(t *testing.T) {
	t.Parallel()
	file := writeConf(t, "app.settings.jwt_exp = 60\napp.settings.kept = 1")
	c, warnings, err := Load(Sources{File: file, Env: []string{"SVC_COMPAT_NAMES=postgrest", "PGRST_APP_SETTINGS_jwt_exp=3600"}})
	if err != nil || len(warnings) > 0 {
		t.Fatal(err, warnings)
	}
	if want := map[string]string{"jwt_exp": "3600", "kept": "1"}; !reflect.DeepEqual(c.AppSettings, want) {
		t.Errorf("app settings = %v, want %v", c.AppSettings, want)
	}
}

// TestAliases reads PostgREST's older key names, the current name winning
// over an alias from any source, as in PostgREST.
func TestAliases(t *testing.T) {
	t.Parallel()
	file := writeConf(t, "db-schema = \"old\"\nmax-rows = 5\npre-request = \"api.pre\"\nroot-spec = \"api.root\"\n"+
		"role-claim-key = \".app.role\"\nsecret-is-base64 = true\ndb-pool-timeout = 9\ndb-max-rows = 6")
	c, warnings, err := Load(Sources{File: file, Env: []string{"SVC_DB_SCHEMA=env_old"}})
	if err != nil || len(warnings) > 0 {
		t.Fatal(err, warnings)
	}
	got := []any{c.DBSchemas, c.DBMaxRows, c.DBPreRequest, c.DBRootSpec, c.JWTRoleClaimKey, c.JWTSecretIsBase64, c.DBPoolMaxIdletime}
	want := []any{[]string{"env_old"}, 6, "api.pre", "api.root", ".app.role", true, 9 * time.Second}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	c, _, err = Load(Sources{File: file, Flags: map[string]string{"db-schemas": "new"}})
	if err != nil || !reflect.DeepEqual(c.DBSchemas, []string{"new"}) {
		t.Errorf("db-schemas = %v, %v; want the current name's value", c.DBSchemas, err)
	}
}

// TestValueFromFile reads db-uri and jwt-secret from "@<file>", as
// PostgREST does for secrets mounted as files.
func TestValueFromFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	secret := filepath.Join(dir, "jwt")
	uri := filepath.Join(dir, "uri")
	if err := os.WriteFile(secret, []byte("a-secret-of-at-least-thirty-two-characters\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(uri, []byte("postgres://app@db/app\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _, err := Load(Sources{Env: []string{"SVC_JWT_SECRET=@" + secret, "SVC_DB_URI=@" + uri}})
	if err != nil {
		t.Fatal(err)
	}
	if c.JWTSecret != "a-secret-of-at-least-thirty-two-characters" || c.DBURI != "postgres://app@db/app" {
		t.Errorf("jwt-secret %q, db-uri %q", c.JWTSecret, c.DBURI)
	}
}
