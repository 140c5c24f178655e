package config

import (
	"strings"
	"testing"
)

// TestRequestLimitKeys: the request size limits take whole numbers in
// their ranges (the depths at most the parser's ceilings), and
// may come from the database, since each request reads them from the
// Server a reload rebuilds.
func TestRequestLimitKeys(t *testing.T) {
	t.Parallel()
	cases := []struct {
		key, value string
		want       string // "" for accepted, else the expectation
	}{
		{"server-max-url-bytes", "1", ""},
		{"server-max-url-bytes", "0", "expected a whole number of at least 1"},
		{"request-max-filters", "1", ""},
		{"request-max-filters", "0", "expected a whole number of at least 1"},
		{"request-max-select-items", "-5", "expected a whole number of at least 1"},
		{"request-max-embed-depth", "1", ""},
		{"request-max-embed-depth", "64", ""},
		{"request-max-embed-depth", "0", "expected a whole number from 1 to 64"},
		{"request-max-embed-depth", "65", "expected a whole number from 1 to 64"},
		{"request-max-embeds", "1", ""},
		{"request-max-embeds", "0", "expected a whole number of at least 1"},
		{"request-max-json-path-depth", "1000", ""},
		{"request-max-json-path-depth", "1001", "expected a whole number from 1 to 1000"},
		{"request-max-json-path-steps", "1", ""},
		{"request-max-json-path-steps", "0", "expected a whole number of at least 1"},
		{"request-max-logic-depth", "1000", ""},
		{"request-max-logic-depth", "0", "expected a whole number from 1 to 1000"},
	}
	for _, c := range cases {
		_, _, err := Load(Sources{Flags: map[string]string{c.key: c.value}})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s = %s: %v", c.key, c.value, err)
		case c.want != "" && (err == nil || !strings.HasSuffix(err.Error(), c.want)):
			t.Errorf("%s = %s: error %v, want %q", c.key, c.value, err, c.want)
		}
	}
	names := DatabaseSettings()
	for _, key := range []string{"server-max-url-bytes", "request-max-filters", "request-max-select-items", "request-max-embed-depth",
		"request-max-embeds", "request-max-json-path-depth", "request-max-json-path-steps", "request-max-logic-depth"} {
		if names[strings.ReplaceAll(key, "-", "_")] != key {
			t.Errorf("%s cannot be set from the database", key)
		}
	}
}

// TestAdminPortOfItsOwn: an admin server set to the API's port is refused
// at load, as PostgREST 13 refuses it, rather than failing to listen
// after the API started; on another host, or with the API on a socket,
// the port is free for it.
func TestAdminPortOfItsOwn(t *testing.T) {
	t.Parallel()
	_, _, err := Load(Sources{Flags: map[string]string{"server-port": "3000", "admin-server-port": "3000"}})
	want := "admin-server-port = 3000 (flag --admin-server-port) is server-port too: give the admin server a port of its own"
	if err == nil || err.Error() != want {
		t.Errorf("same port: %v, want %s", err, want)
	}
	for _, flags := range []map[string]string{
		{"server-port": "3000", "admin-server-port": "3001"},
		{"server-port": "3000", "admin-server-port": "3000", "admin-server-host": "127.0.0.2"},
		{"server-port": "3000", "admin-server-port": "3000", "server-unix-socket": "/tmp/svc.sock"},
	} {
		if _, _, err := Load(Sources{Flags: flags}); err != nil {
			t.Errorf("%v: %v", flags, err)
		}
	}
}
