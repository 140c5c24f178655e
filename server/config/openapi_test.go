package config

import (
	"strings"
	"testing"
)

func TestOpenAPIServer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		flags                  map[string]string
		scheme, host, basePath string
	}{
		{map[string]string{}, "http", "0.0.0.0:3000", "/"},
		{map[string]string{"server-host": "localhost", "server-port": "8080"}, "http", "localhost:8080", "/"},
		{map[string]string{"server-host": "::1"}, "http", "[::1]:3000", "/"},
		{map[string]string{"openapi-server-proxy-uri": "https://api.example"}, "https", "api.example:443", "/"},
		{map[string]string{"openapi-server-proxy-uri": "HTTP://u:p@api.example:8080/base/path?q=1#f"}, "http", "api.example:8080", "/base/path"},
	}
	for _, c := range cases {
		cfg, _, err := Load(Sources{Flags: c.flags})
		if err != nil {
			t.Fatalf("%v: %v", c.flags, err)
		}
		scheme, host, basePath := cfg.OpenAPIServer()
		if scheme != c.scheme || host != c.host || basePath != c.basePath {
			t.Errorf("%v: OpenAPIServer() = %q, %q, %q; want %q, %q, %q", c.flags, scheme, host, basePath, c.scheme, c.host, c.basePath)
		}
	}
}

func TestOpenAPIValuesRefused(t *testing.T) {
	t.Parallel()
	for _, c := range [][2]string{
		{"openapi-server-proxy-uri", "ftp://files.example"},
		{"openapi-mode", "secret"},
		{"openapi-security-active", "maybe"},
		{"openapi-version", "3.0"},
		{"openapi-ui-path", "/"},
		{"openapi-ui-path", "docs"},
		{"openapi-ui-path", "/docs?x=1"},
		{"openapi-ui-path", "//docs"},
		{"openapi-ui-path", "/{relation}"},
	} {
		key, value := c[0], c[1]
		_, _, err := Load(Sources{Flags: map[string]string{key: value}})
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s = %q: error %v, want one naming the key", key, value, err)
		}
	}
	for _, bad := range []string{"example.com", "https://", "https://h:99999/", "mailto:x@example.com"} {
		if _, _, _, _, ok := parseProxyURI(bad); ok {
			t.Errorf("parseProxyURI(%q) accepted", bad)
		}
	}
}

// TestOpenAPIUIPath: the reference page's path is kept without a trailing
// slash, so the page answers at it and below it alike.
func TestOpenAPIUIPath(t *testing.T) {
	t.Parallel()
	for value, want := range map[string]string{"": "", "/docs/": "/docs", " /api/reference ": "/api/reference"} {
		cfg, _, err := Load(Sources{Flags: map[string]string{"openapi-ui-path": value, "openapi-version": "3.1"}})
		if err != nil || cfg.OpenAPIUIPath != want || cfg.OpenAPIVersion != "3.1" {
			t.Errorf("openapi-ui-path %q: %q, %v; want %q", value, cfg.OpenAPIUIPath, err, want)
		}
	}
}
