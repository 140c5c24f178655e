package main

import (
	"bytes"
	"net"
	"strings"
	"testing"
)

// TestReadyFlag: `svc-serve --ready`, PostgREST 14's health check, exits
// 0 while the configuration's admin server answers /ready, and fails,
// saying why, when nothing answers or no admin server is configured.
func TestReadyFlag(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	ready := func(args ...string) error {
		var out bytes.Buffer
		return newApp(&out, &out).Run(append([]string{"svc-serve", "--ready"}, args...))
	}
	// Nothing listens on the port yet.
	if err := ready("--admin-server-port", port, "--admin-server-host", "127.0.0.1"); err == nil ||
		!strings.HasPrefix(err.Error(), "not ready: ") {
		t.Errorf("--ready with no server: %v, want not ready", err)
	}
	_, stop := start(t, map[string]string{"admin-server-port": port, "admin-server-host": "127.0.0.1"})
	defer stop()
	if err := ready("--admin-server-port", port, "--admin-server-host", "127.0.0.1"); err != nil {
		t.Errorf("--ready with the server up: %v", err)
	}
	// The wildcard host of a container's configuration is asked on the
	// loopback address.
	if err := ready("--admin-server-port", port, "--admin-server-host", "*4"); err != nil {
		t.Errorf("--ready with admin-server-host = *4: %v", err)
	}
	if err := ready(); err == nil || !strings.Contains(err.Error(), "admin-server-port is not set") {
		t.Errorf("--ready without an admin server: %v", err)
	}
}
