package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestDependenciesStaySmall keeps svc-introspect from linking the HTTP
// server: it needs a configuration's channel name (server/naming), not the
// router, the metrics or the request pipeline that come with package server.
func TestDependenciesStaySmall(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("the go command is not on PATH")
		}
		t.Skip("the go command is not on PATH; this test lists the package's dependencies with it")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages; expected the program's dependencies", len(deps))
	}
	for _, dep := range deps {
		for _, banned := range []string{"github.com/gorilla/mux", "github.com/prometheus/", "github.com/svc-dev/svc/server/http1"} {
			if dep == banned || strings.HasPrefix(dep, banned) {
				t.Errorf("svc-introspect links %s", dep)
			}
		}
		if dep == "github.com/svc-dev/svc/server" {
			t.Errorf("svc-introspect links package server")
		}
	}
}
