package config

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ListenAddr returns the address to listen on, translating PostgREST's
// (warp's) host preferences: "!4" and "*4" mean all IPv4 interfaces, "!6",
// "*6" and "*" all IPv6 interfaces (dual-stack where the OS allows it).
func (c *Config) ListenAddr() string { return listenAddr(c.ServerHost, c.ServerPort) }

func listenAddr(host string, p int) string {
	port := strconv.Itoa(p)
	switch host {
	case "!4", "*4":
		return net.JoinHostPort("0.0.0.0", port)
	case "!6", "*6", "*":
		return net.JoinHostPort("::", port)
	}
	// Accept "[::1]" as well as "::1": users copy hosts from URLs.
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	return net.JoinHostPort(host, port)
}

// ListenNetwork returns the net.Listen network for ServerHost. It matters
// because Go listens dual-stack on "tcp" even for "0.0.0.0"; only "tcp4" and
// "tcp6" honour PostgREST's IPv4-only "!4" and IPv6-only "!6".
func (c *Config) ListenNetwork() string { return listenNetwork(c.ServerHost) }

func listenNetwork(host string) string {
	switch host {
	case "!4":
		return "tcp4"
	case "!6":
		return "tcp6"
	}
	return "tcp"
}

// AdminEnabled reports whether admin-server-port is set.
func (c *Config) AdminEnabled() bool { return c.AdminServerPort >= 0 }

// AdminListenAddr and AdminListenNetwork are ListenAddr and ListenNetwork
// for the admin server: admin-server-host (server-host when empty) and
// admin-server-port.
func (c *Config) AdminListenAddr() string {
	return listenAddr(c.adminHost(), max(c.AdminServerPort, 0))
}

// AdminListenNetwork is ListenNetwork for the admin server's host.
func (c *Config) AdminListenNetwork() string { return listenNetwork(c.adminHost()) }

// checkAdminPort refuses an admin server set to listen where the API
// does (the same port on the same host), as PostgREST 13 does: one of the
// two could not listen, and which would depend on which starts first.
// src says where admin-server-port was set.
func (c *Config) checkAdminPort(src string) error {
	if c.AdminServerPort <= 0 || c.AdminServerPort != c.ServerPort || c.ServerUnixSocket != "" || c.adminHost() != c.ServerHost {
		return nil
	}
	return fmt.Errorf("admin-server-port = %d (%s) is server-port too: give the admin server a port of its own", c.AdminServerPort, src)
}

func (c *Config) adminHost() string {
	if c.AdminServerHost != "" {
		return c.AdminServerHost
	}
	return c.ServerHost
}

// DirectURI is the connection for what must not go through a transaction
// pooler: LISTEN, introspection and in-database configuration. It is
// db-channel-uri when set, else db-uri.
func (c *Config) DirectURI() string {
	if c.DBChannelURI != "" {
		return c.DBChannelURI
	}
	return c.DBURI
}

// HTTPServer returns an http.Server for handler with the configured limits:
// header size, read (the whole request; headers within at most 10 s, so a
// client trickling them cannot hold a connection), write and idle timeouts.
func (c *Config) HTTPServer(handler http.Handler) *http.Server {
	header := 10 * time.Second
	if c.ServerReadTimeout > 0 && c.ServerReadTimeout < header {
		header = c.ServerReadTimeout
	}
	return &http.Server{Handler: handler, ReadHeaderTimeout: header, ReadTimeout: c.ServerReadTimeout,
		WriteTimeout: c.ServerWriteTimeout, IdleTimeout: c.ServerIdleTimeout, MaxHeaderBytes: c.ServerMaxHeaderBytes}
}
