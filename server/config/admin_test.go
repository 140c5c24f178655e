package config

import (
	"strings"
	"testing"
)

func TestAdminListen(t *testing.T) {
	t.Parallel()
	tests := []struct {
		flags         map[string]string
		enabled       bool
		addr, network string
	}{
		{map[string]string{}, false, "", ""},
		{map[string]string{"admin-server-port": "3001"}, true, "0.0.0.0:3001", "tcp4"},
		{map[string]string{"admin-server-port": "0", "server-host": "localhost"}, true, "localhost:0", "tcp"},
		{map[string]string{"admin-server-port": "3001", "server-host": "localhost", "admin-server-host": "!6"}, true, "[::]:3001", "tcp6"},
	}
	for _, tt := range tests {
		c, _, err := Load(Sources{Flags: tt.flags})
		if err != nil {
			t.Fatalf("%v: %v", tt.flags, err)
		}
		if c.AdminEnabled() != tt.enabled {
			t.Errorf("%v: enabled %v", tt.flags, c.AdminEnabled())
		}
		if tt.enabled && (c.AdminListenAddr() != tt.addr || c.AdminListenNetwork() != tt.network) {
			t.Errorf("%v: %s %s, want %s %s", tt.flags, c.AdminListenNetwork(), c.AdminListenAddr(), tt.network, tt.addr)
		}
	}
	_, _, err := Load(Sources{Flags: map[string]string{"admin-server-port": "70000"}})
	if err == nil || !strings.Contains(err.Error(), "expected a whole number from 0 to 65535, or nothing for no admin server") {
		t.Errorf("bad port: %v", err)
	}
	_, _, err = Load(Sources{Flags: map[string]string{"log-query": "yes", "log-format": "xml"}})
	if err == nil || !strings.Contains(err.Error(), "expected one of disabled, main-query") || !strings.Contains(err.Error(), "expected one of text, json") {
		t.Errorf("bad log-query and log-format: %v", err)
	}
}
