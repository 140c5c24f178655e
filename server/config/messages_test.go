package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestValidationErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file string
		env        []string
		flags      map[string]string
		want       string // %F stands for the config file path
	}{
		{name: "pool not a number", file: "\n\ndb-pool = \"abc\"",
			want: `db-pool = "abc" (config file %F, line 3): expected a whole number of at least 1`},
		{name: "pool zero", env: []string{"SVC_DB_POOL=0"},
			want: `db-pool = "0" (environment variable SVC_DB_POOL): expected a whole number of at least 1`},
		{name: "timeout", flags: map[string]string{"db-pool-acquisition-timeout": "1.5"},
			want: `db-pool-acquisition-timeout = "1.5" (flag --db-pool-acquisition-timeout): expected a whole number of seconds of at least 1`},
		{name: "timeout overflow", flags: map[string]string{"db-pool-acquisition-timeout": "99999999999999999999"},
			want: `db-pool-acquisition-timeout = "99999999999999999999" (flag --db-pool-acquisition-timeout): expected a whole number of seconds of at least 1`},
		{name: "max rows negative", file: "db-max-rows = -1",
			want: `db-max-rows = "-1" (config file %F, line 1): expected a whole number of at least 0`},
		{name: "port range", flags: map[string]string{"server-port": "65536"},
			want: `server-port = "65536" (flag --server-port): expected a whole number from 0 to 65535`},
		{name: "boolean", file: `db-channel-enabled = "yes"`,
			want: `db-channel-enabled = "yes" (config file %F, line 1): expected true or false (or 1 or 0)`},
		{name: "plan boolean", env: []string{"SVC_DB_PLAN_ENABLED=2"},
			want: `db-plan-enabled = "2" (environment variable SVC_DB_PLAN_ENABLED): expected true or false (or 1 or 0)`},
		{name: "empty schemas", file: `db-schemas = ""`,
			want: `db-schemas = "" (config file %F, line 1): expected a comma-separated list of one or more names, without empty items`},
		{name: "blank schemas", flags: map[string]string{"db-schemas": " , "},
			want: `db-schemas = " , " (flag --db-schemas): expected a comma-separated list of one or more names, without empty items`},
		{name: "empty schema item", file: `db-schemas = "api,,v2"`,
			want: `db-schemas = "api,,v2" (config file %F, line 1): expected a comma-separated list of one or more names, without empty items`},
		{name: "search path trailing comma", file: `db-extra-search-path = "public,"`,
			want: `db-extra-search-path = "public," (config file %F, line 1): expected a comma-separated list of names, without empty items`},
		{name: "unimplemented key a client would notice", file: `db-timezone-enabled = false`,
			want: `db-timezone-enabled = "false" (config file %F, line 1): not implemented by SVC, and ignoring it would change ` +
				`what clients see (SVC always honours Prefer: timezone); remove it or set it to true`},
		{name: "unimplemented key, the value that wins counts", file: `db-timezone-enabled = true`,
			env: []string{"SVC_DB_TIMEZONE_ENABLED=false"},
			want: `db-timezone-enabled = "false" (environment variable SVC_DB_TIMEZONE_ENABLED): not implemented by SVC, ` +
				`and ignoring it would change what clients see (SVC always honours Prefer: timezone); remove it or set it to true`},
		{name: "client-error-verbosity", file: `client-error-verbosity = "terse"`,
			want: `client-error-verbosity = "terse" (config file %F, line 1): expected one of verbose, minimal`},
		{name: "compat-names", flags: map[string]string{"compat-names": "pgrst"},
			want: `compat-names = "pgrst" (flag --compat-names): expected one of svc, postgrest`},
		{name: "secret file missing", file: `jwt-secret = "@/nonexistent/jwt.secret"`,
			want: `jwt-secret = "@/nonexistent/jwt.secret" (config file %F, line 1): expected a readable file after @ ` +
				`(open /nonexistent/jwt.secret: no such file or directory)`},
		{name: "log level", file: `log-level = "verbose"`,
			want: `log-level = "verbose" (config file %F, line 1): expected one of crit, error, warn, info, debug`},
		{name: "all errors reported, in table order", file: "server-port = x\ndb-pool = 0",
			want: "db-pool = \"0\" (config file %F, line 2): expected a whole number of at least 1\n" +
				`server-port = "x" (config file %F, line 1): expected a whole number from 0 to 65535`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := Sources{Env: tt.env, Flags: tt.flags}
			if tt.file != "" {
				src.File = writeConf(t, tt.file)
			}
			c, _, err := Load(src)
			want := strings.ReplaceAll(tt.want, "%F", src.File)
			if err == nil || err.Error() != want {
				t.Errorf("error = %v\nwant    %s", err, want)
			}
			if c != nil {
				t.Errorf("config returned with an error: %+v", c)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file string
		env        []string
		flags      map[string]string
		want       []Warning // Source and Message: %F stands for the config file path
	}{
		{name: "typo in file", file: "db-pool = 1\ndb-shemas = \"api\"",
			want: []Warning{{"db-shemas", "config file %F, line 2",
				`unknown configuration key "db-shemas" (config file %F, line 2); did you mean "db-schemas"?`}}},
		{name: "separator and case slip", file: `DB_ANON_ROLE = "x"`,
			want: []Warning{{"DB_ANON_ROLE", "config file %F, line 1",
				`unknown configuration key "DB_ANON_ROLE" (config file %F, line 1); did you mean "db-anon-role"?`}}},
		{name: "transposition", flags: map[string]string{"server-prot": "1"},
			want: []Warning{{"server-prot", "flag --server-prot",
				`unknown configuration key "server-prot" (flag --server-prot); did you mean "server-port"?`}}},
		{name: "nothing close", file: "colour = blue",
			want: []Warning{{"colour", "config file %F, line 1",
				`unknown configuration key "colour" (config file %F, line 1)`}}},
		// A removed key is ignored, and svc-serve says what replaced it.
		{name: "removed keys, file", file: "server-http = \"net/http\"\nserver-raw-sockets = true\nserver-sched-batch = true",
			want: []Warning{{"server-http", "config file %F, line 1",
				`configuration key "server-http" was removed and is ignored (config file %F, line 1): ` +
					`SVC always serves HTTP with its own server, which answers as net/http's does`},
				{"server-raw-sockets", "config file %F, line 2",
					`configuration key "server-raw-sockets" was removed and is ignored (config file %F, line 2): ` +
						`raw socket calls cost SVC throughput once it is busy, so SVC no longer makes them (deploy/bench/RESULTS.md)`},
				{"server-sched-batch", "config file %F, line 3",
					`configuration key "server-sched-batch" was removed and is ignored (config file %F, line 3): ` +
						`run svc-serve under SCHED_BATCH with systemd's CPUSchedulingPolicy=batch or chrt --batch (docs/operations.md, "Machine resources")`}}},
		{name: "removed key, flag", flags: map[string]string{"server-http": "http1"},
			want: []Warning{{"server-http", "flag --server-http",
				`configuration key "server-http" was removed and is ignored (flag --server-http): ` +
					`SVC always serves HTTP with its own server, which answers as net/http's does`}}},
		{name: "removed key, env", env: []string{"SVC_SERVER_SCHED_BATCH=true"},
			want: []Warning{{"SVC_SERVER_SCHED_BATCH", "environment variable SVC_SERVER_SCHED_BATCH",
				`configuration key "server-sched-batch" was removed and is ignored (environment variable SVC_SERVER_SCHED_BATCH): ` +
					`run svc-serve under SCHED_BATCH with systemd's CPUSchedulingPolicy=batch or chrt --batch (docs/operations.md, "Machine resources")`}}},
		{name: "app settings prefix typo", file: `app.setting.jwt = "x"`,
			want: []Warning{{"app.setting.jwt", "config file %F, line 1",
				`unknown configuration key "app.setting.jwt" (config file %F, line 1); did you mean "app.settings.jwt"?`}}},
		{name: "bare app settings prefix", file: `app.settings. = "x"`,
			want: []Warning{{"app.settings.", "config file %F, line 1",
				`unknown configuration key "app.settings." (config file %F, line 1)`}}},
		{name: "not implemented, file", file: `db-pool-automatic-recovery = "true"`,
			want: []Warning{{"db-pool-automatic-recovery", "config file %F, line 1",
				`configuration key "db-pool-automatic-recovery" is not implemented by SVC and is ignored (config file %F, line 1): ` +
					`SVC always reconnects, answering 503 with Retry-After while the database is away`}}},
		{name: "not implemented, flag", flags: map[string]string{"jwt-cache-max-lifetime": "60"},
			want: []Warning{{"jwt-cache-max-lifetime", "flag --jwt-cache-max-lifetime",
				`configuration key "jwt-cache-max-lifetime" is not implemented by SVC and is ignored (flag --jwt-cache-max-lifetime): ` +
					`SVC caches verified tokens until they expire (at most five minutes), at most jwt-cache-max-entries of them in at most jwt-cache-max-bytes`}}},
		{name: "not implemented, env", env: []string{"SVC_DB_HOISTED_TX_SETTINGS=statement_timeout"},
			want: []Warning{{"SVC_DB_HOISTED_TX_SETTINGS", "environment variable SVC_DB_HOISTED_TX_SETTINGS",
				`configuration key "db-hoisted-tx-settings" is not implemented by SVC and is ignored (environment variable SVC_DB_HOISTED_TX_SETTINGS): ` +
					`SVC applies the role's own settings but does not hoist a function's SET clauses to the transaction`}}},
		{name: "not implemented, harmless value", file: `db-timezone-enabled = "True"`,
			want: []Warning{{"db-timezone-enabled", "config file %F, line 1",
				`configuration key "db-timezone-enabled" is not implemented by SVC and is ignored (config file %F, line 1): ` +
					`SVC always honours Prefer: timezone`}}},
		{name: "env typo, sorted", env: []string{"SVC_SERVER_PROT=1", "SVC_DB_SHEMAS=api", "SVC_PG_BIN=/x", "SVC_TEST_DB_URI=y", "PGRST_DB_SHEMAS=z"},
			want: []Warning{
				{"SVC_DB_SHEMAS", "environment variable SVC_DB_SHEMAS",
					`unknown environment variable SVC_DB_SHEMAS (no configuration key "db-shemas"); did you mean SVC_DB_SCHEMAS?`},
				{"SVC_SERVER_PROT", "environment variable SVC_SERVER_PROT",
					`unknown environment variable SVC_SERVER_PROT (no configuration key "server-prot"); did you mean SVC_SERVER_PORT?`},
			}},
		{name: "env nothing close", env: []string{"SVC_COLOUR=blue"},
			want: []Warning{{"SVC_COLOUR", "environment variable SVC_COLOUR",
				`unknown environment variable SVC_COLOUR (no configuration key "colour")`}}},
		{name: "env app settings", env: []string{"SVC_APP_SETTINGS_FOO=1"},
			want: []Warning{{"SVC_APP_SETTINGS_FOO", "environment variable SVC_APP_SETTINGS_FOO",
				"environment variable SVC_APP_SETTINGS_FOO is ignored: app.settings.* can be set only in the config file or by flag"}}},
		{name: "repeated key", file: "db-pool = 1\n\ndb-pool = 2",
			want: []Warning{{"db-pool", "config file %F, line 3",
				`configuration key "db-pool" is set more than once in config file %F (lines 1 and 3); line 3 wins`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := Sources{Env: tt.env, Flags: tt.flags}
			if tt.file != "" {
				src.File = writeConf(t, tt.file)
			}
			_, got, err := Load(src)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]Warning, len(tt.want))
			for i, w := range tt.want {
				want[i] = Warning{w.Key, strings.ReplaceAll(w.Source, "%F", src.File), strings.ReplaceAll(w.Message, "%F", src.File)}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("warnings:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestWarningsKeptWithError(t *testing.T) {
	t.Parallel()
	_, warnings, err := Load(Sources{Flags: map[string]string{"db-pool": "x", "db-pol": "3"}})
	if err == nil || len(warnings) != 1 || !strings.Contains(warnings[0].Message, `did you mean "db-pool"?`) {
		t.Errorf("got %v, %v; want an error and the db-pol warning", warnings, err)
	}
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"db-uri", "db-uri"},
		{"db-uris", "db-uri"},
		{"DB.URI", "db-uri"},
		{"dbpool", "db-pool"},
		{"db-pool-acquisiton-timout", "db-pool-acquisition-timeout"},
		{"loglevel", "log-level"},
		{"snapshots", "snapshot"},
		{"app_settings_Name", "app.settings.Name"},
		{"server-hostname", ""}, // distance 4
		{"xyz", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			if got := closestKey(tt.in); got != tt.want {
				t.Errorf("closestKey(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
