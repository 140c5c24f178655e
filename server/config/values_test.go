package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestBooleanValues reads booleans as PostgREST does, from every source: a
// PostgREST deployment's PGRST_DB_PLAN_ENABLED=1 must start SVC.
func TestBooleanValues(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		src  Sources
		want bool
	}{
		{"PGRST_ 1 under compat-names", Sources{Env: []string{"SVC_COMPAT_NAMES=postgrest", "PGRST_DB_PLAN_ENABLED=1"}}, true},
		{"SVC_ 1", Sources{Env: []string{"SVC_DB_PLAN_ENABLED=1"}}, true},
		{"SVC_ TRUE", Sources{Env: []string{"SVC_DB_PLAN_ENABLED=TRUE"}}, true},
		{"file True", Sources{File: "db-plan-enabled = True"}, true},
		{"file bare 1", Sources{File: "db-plan-enabled = 1"}, true},
		{"file quoted 0", Sources{File: `db-plan-enabled = "0"`}, false},
		{"flag FALSE over env 1", Sources{Env: []string{"SVC_DB_PLAN_ENABLED=1"}, Flags: map[string]string{"db-plan-enabled": "FALSE"}}, false},
		{"padded", Sources{Flags: map[string]string{"db-plan-enabled": " 1 "}}, true},
		{"database 1", Sources{Database: map[string]string{"db-plan-enabled": "1"}, DatabasePrefix: "svc."}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.src.File != "" {
				c.src.File = writeConf(t, c.src.File+"\n")
			}
			cfg, _, err := Load(c.src)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.DBPlanEnabled != c.want {
				t.Errorf("db-plan-enabled = %v, want %v", cfg.DBPlanEnabled, c.want)
			}
		})
	}
	for _, bad := range []string{"2", "-1", "yes", "on", "t", ""} {
		if _, _, err := Load(Sources{Flags: map[string]string{"db-plan-enabled": bad}}); err == nil {
			t.Errorf("db-plan-enabled = %q accepted", bad)
		}
	}
}

// TestSnapshotPathRelativeToFile: a relative snapshot path in a
// configuration file names a file beside it, wherever svc-serve starts;
// given by flag or environment it stays relative to the working directory.
func TestSnapshotPathRelativeToFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	n := 0
	conf := func(content string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, "etc"), 0o755); err != nil {
			t.Fatal(err)
		}
		n++
		path := filepath.Join(dir, "etc", fmt.Sprintf("svc%d.conf", n))
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cases := []struct {
		name string
		src  Sources
		want string
	}{
		{"beside the file", Sources{File: conf(`snapshot = "api.msgpack"`)}, filepath.Join(dir, "etc", "api.msgpack")},
		{"up from the file", Sources{File: conf(`snapshot = "../snap/api.msgpack"`)}, filepath.Join(dir, "snap", "api.msgpack")},
		{"absolute", Sources{File: conf(`snapshot = "/var/lib/svc/api.msgpack"`)}, "/var/lib/svc/api.msgpack"},
		{"published", Sources{File: conf(`snapshot = "db"`)}, "db"},
		{"published in a schema", Sources{File: conf(`snapshot = "db:snaps"`)}, "db:snaps"},
		{"flag", Sources{File: conf(`snapshot = "api.msgpack"`), Flags: map[string]string{"snapshot": "api.msgpack"}}, "api.msgpack"},
		{"environment", Sources{Env: []string{"SVC_SNAPSHOT=api.msgpack"}}, "api.msgpack"},
	}
	for _, c := range cases {
		cfg, _, err := Load(c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if cfg.Snapshot != c.want {
			t.Errorf("%s: snapshot = %q, want %q", c.name, cfg.Snapshot, c.want)
		}
	}
	// A file called db in the working directory stays a file.
	for value, want := range map[string]string{"./db": "./db", "db:x/../db": "db:x/../db"} {
		if got := snapshotPath("svc.conf", value); got != want {
			t.Errorf("snapshotPath(svc.conf, %q) = %q, want %q", value, got, want)
		}
	}
}

// TestReplicaURIs splits db-replica-uris between URIs, never inside one:
// a multi-host URI keeps its commas, and a file lists one URI a line.
func TestReplicaURIs(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "replicas")
	if err := os.WriteFile(file, []byte("postgres://r1/app\n\nhost=r2 dbname=app\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		value string
		want  []string
	}{
		{"", []string{}},
		{"postgres://r1/app", []string{"postgres://r1/app"}},
		{"postgres://r1/app, postgresql://r2/app", []string{"postgres://r1/app", "postgresql://r2/app"}},
		{"postgres://r1:5432,r2:5432/app?target_session_attrs=any,postgres://r3/app",
			[]string{"postgres://r1:5432,r2:5432/app?target_session_attrs=any", "postgres://r3/app"}},
		{"POSTGRES://r1/app,Postgres://r2/app,", []string{"POSTGRES://r1/app", "Postgres://r2/app"}},
		{"@" + file, []string{"postgres://r1/app", "host=r2 dbname=app"}},
	}
	for _, c := range cases {
		cfg, _, err := Load(Sources{Flags: map[string]string{"db-replica-uris": c.value}})
		if err != nil {
			t.Fatalf("%q: %v", c.value, err)
		}
		if !slices.Equal(cfg.DBReplicaURIs, c.want) {
			t.Errorf("%q: %q, want %q", c.value, cfg.DBReplicaURIs, c.want)
		}
	}
	if _, _, err := Load(Sources{Flags: map[string]string{"db-replica-uris": "@/no/such/file"}}); err == nil {
		t.Error("an unreadable @file was accepted")
	}
}

// TestLogQueryBoolean: PostgREST 14 made log-query a boolean; its true and
// false mean 13's main-query and disabled, so a configuration of either
// version runs.
func TestLogQueryBoolean(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"true": "main-query", "FALSE": "disabled", "main-query": "main-query", "disabled": "disabled"} {
		c, _, err := Load(Sources{Flags: map[string]string{"log-query": in}})
		if err != nil || c.LogQuery != want {
			t.Errorf("log-query = %s: %v %v, want %s", in, c, err, want)
		}
	}
	if _, _, err := Load(Sources{Flags: map[string]string{"log-query": "yes"}}); err == nil {
		t.Error("log-query = yes accepted")
	}
}
