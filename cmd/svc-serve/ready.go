package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/svc-dev/svc/server/config"
)

// readyTimeout bounds `svc-serve --ready`: a container's health check
// must answer within its own interval.
const readyTimeout = 5 * time.Second

// checkReady is `svc-serve --ready`, PostgREST 14's health check for
// images without curl (SVC's is distroless): it asks the admin server of
// the configuration at hand for /ready and fails unless it answers 200.
// A wildcard admin host (all interfaces) is asked on the loopback address.
func checkReady(ctx context.Context, cfg *config.Config) error {
	if !cfg.AdminEnabled() || cfg.AdminServerPort == 0 {
		return fmt.Errorf("--ready asks the admin server's /ready, and admin-server-port is not set to a port")
	}
	host, port, err := net.SplitHostPort(cfg.AdminListenAddr())
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if cfg.AdminListenNetwork() == "tcp6" {
			host = "::1"
		}
	}
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	url := "http://" + net.JoinHostPort(host, port) + "/ready"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("not ready: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("not ready: GET %s answered %d", url, resp.StatusCode)
	}
	return nil
}
