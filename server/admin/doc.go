// Package admin is the admin server (admin-server-port): liveness and
// readiness probes, the snapshot in force, and SVC's Prometheus metrics,
// which the API handler counts its requests in (Metrics.Observe). It
// reads the pool and the snapshots; it never serves API data.
package admin
