package server_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// missingDependency skips a test whose outside tool (a browser, PostGIS,
// PgBouncer, Node packages) is not installed here, saying how to install
// it; under CI, where .ci/run installs them all, it fails instead.
func missingDependency(t *testing.T, msg string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// requireNodePackage returns the node binary when the npm package pkg is
// installed under dir's node_modules (by npm ci --prefix dir).
func requireNodePackage(t *testing.T, dir, pkg string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missingDependency(t, "node is not installed (Node.js 20 or later)")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg)); err != nil {
		missingDependency(t, pkg+" is not installed: run npm ci --prefix "+filepath.Join("server", dir))
	}
	return node
}
