package config

import (
	"os"
	"strings"
	"testing"
)

// TestReferenceDocIsCurrent fails while docs/configuration.md and the key
// table differ: a key added, renamed, redocumented or given another
// default needs `go generate ./server/config`.
func TestReferenceDocIsCurrent(t *testing.T) {
	t.Parallel()
	const path = "../../docs/configuration.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := FillReference(string(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if string(data) != want {
		t.Errorf("%s is out of date with the key table in keys.go; run go generate ./server/config", path)
	}
}

// TestReference: every key is described, with its environment variable,
// whether a reload applies it, its in-database setting and PostgREST's
// name, as the table says.
func TestReference(t *testing.T) {
	t.Parallel()
	ref := Reference()
	if len(ref) != len(keys) {
		t.Fatalf("%d entries for %d keys", len(ref), len(keys))
	}
	byName := map[string]Entry{}
	for _, e := range ref {
		if e.Doc == "" || e.Env != envName(e.Name) {
			t.Errorf("%s: %+v", e.Name, e)
		}
		byName[e.Name] = e
	}
	checks := []struct {
		name       string
		reloadable bool
		setting    string
		postgrest  string
		older      string
	}{
		{"db-schemas", true, "svc.db_schemas", "db-schemas", "db-schema"},
		{"db-uri", false, "", "db-uri", ""},
		{"db-pool-max-idletime", false, "svc.db_pool_max_idletime", "db-pool-max-idletime", "db-pool-timeout"},
		{"snapshot", true, "", "", ""},
		{"server-reuseport", false, "", "", ""},
		{"log-format", false, "", "", ""},
		{"jwt-secret", true, "svc.jwt_secret", "jwt-secret", ""},
	}
	for _, c := range checks {
		e := byName[c.name]
		if e.Reloadable != c.reloadable || e.DatabaseSetting != c.setting || e.PostgREST != c.postgrest ||
			strings.Join(e.OlderNames, ",") != c.older {
			t.Errorf("%s: %+v", c.name, e)
		}
	}
	// In-database settings are exactly what DatabaseSettings reads.
	settings := DatabaseSettings()
	for _, e := range ref {
		if got := settings[strings.TrimPrefix(e.DatabaseSetting, "svc.")] == e.Name; got != (e.DatabaseSetting != "") {
			t.Errorf("%s: reference says %q, DatabaseSettings disagrees", e.Name, e.DatabaseSetting)
		}
	}
}
