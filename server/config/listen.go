package config

import (
	"net"
	"strconv"
	"strings"
)

// ListenAddr returns the address to listen on, translating PostgREST's
// (warp's) host preferences: "!4" and "*4" mean all IPv4 interfaces, "!6",
// "*6" and "*" all IPv6 interfaces (dual-stack where the OS allows it).
func (c *Config) ListenAddr() string {
	port := strconv.Itoa(c.ServerPort)
	switch c.ServerHost {
	case "!4", "*4":
		return net.JoinHostPort("0.0.0.0", port)
	case "!6", "*6", "*":
		return net.JoinHostPort("::", port)
	}
	// Accept "[::1]" as well as "::1": users copy hosts from URLs.
	host := c.ServerHost
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	return net.JoinHostPort(host, port)
}

// ListenNetwork returns the net.Listen network for ServerHost. It matters
// because Go listens dual-stack on "tcp" even for "0.0.0.0"; only "tcp4" and
// "tcp6" honour PostgREST's IPv4-only "!4" and IPv6-only "!6".
func (c *Config) ListenNetwork() string {
	switch c.ServerHost {
	case "!4":
		return "tcp4"
	case "!6":
		return "tcp6"
	}
	return "tcp"
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
