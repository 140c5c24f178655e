package config

import (
	"net"
	"net/url"
	"strconv"
	"strings"
)

// OpenAPI modes (openapi-mode).
const (
	OpenAPIFollowPrivileges = "follow-privileges"
	OpenAPIIgnorePrivileges = "ignore-privileges"
	OpenAPIDisabled         = "disabled"
)

// OpenAPIVersions are the values of openapi-version, the default first.
var OpenAPIVersions = []string{"2.0", "3.1"}

// uiPath accepts "" (no reference page) or an absolute path below the
// root, without query or fragment; a trailing slash is dropped, as the
// page is served at the path and below it.
func uiPath(field func(*Config) *string) setter {
	return func(c *Config, v string) error {
		v = strings.TrimSpace(v)
		if v == "" {
			*field(c) = ""
			return nil
		}
		// "/" itself is the API's root, which the page cannot take.
		v = strings.TrimRight(v, "/")
		if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, "?#%{}\\ ") || strings.Contains(v, "//") {
			return expected("an absolute path below the root, such as /docs, or empty")
		}
		*field(c) = v
		return nil
	}
}

// parseProxyURI reads openapi-server-proxy-uri: an http or https URI with a
// host; the port defaults to the scheme's and the path to "/". User,
// query and fragment are ignored, as in PostgREST.
func parseProxyURI(v string) (scheme, host string, port int, path string, ok bool) {
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil || u.Hostname() == "" {
		return "", "", 0, "", false
	}
	scheme = strings.ToLower(u.Scheme)
	switch scheme {
	case "http":
		port = 80
	case "https":
		port = 443
	default:
		return "", "", 0, "", false
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil || port > 65535 {
			return "", "", 0, "", false
		}
	}
	path = u.Path
	if path == "" {
		path = "/"
	}
	return scheme, u.Hostname(), port, path, true
}

// proxyURI accepts "" (no proxy) or a URI parseProxyURI reads.
func proxyURI(field func(*Config) *string) setter {
	return func(c *Config, v string) error {
		if strings.TrimSpace(v) != "" {
			if _, _, _, _, ok := parseProxyURI(v); !ok {
				return expected("an http or https URI with a host, such as https://example.com:8443/basePath")
			}
		}
		*field(c) = strings.TrimSpace(v)
		return nil
	}
}

// OpenAPIServer says where the OpenAPI document tells clients the API is:
// scheme, host with port, and base path. openapi-server-proxy-uri decides
// when set; otherwise it is http on server-host and server-port, with the
// wildcard hosts ("!4", "*", ...) shown as 0.0.0.0, as PostgREST does.
func (c *Config) OpenAPIServer() (scheme, host, basePath string) {
	if c.OpenAPIServerProxyURI != "" {
		if s, h, p, path, ok := parseProxyURI(c.OpenAPIServerProxyURI); ok {
			return s, net.JoinHostPort(h, strconv.Itoa(p)), path
		}
	}
	h := c.ServerHost
	switch h {
	case "!4", "*4", "!6", "*6", "*":
		h = "0.0.0.0"
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return "http", net.JoinHostPort(h, strconv.Itoa(c.ServerPort)), "/"
}
