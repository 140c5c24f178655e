// Package deploy_test checks the deployment files that cannot run here
// (Dockerfile, Kubernetes manifests, systemd unit) as far as this machine
// allows, and runs the fleet test: several svc-serve processes behind
// PgBouncer through a schema rollout and a database restart.
package deploy_test

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/config"
	"go.yaml.in/yaml/v3"
)

// TestDockerfile checks the image is multi-stage, builds without cgo and
// runs as a non-root user, that it exposes the ports svc-serve serves
// without configuration, and that the build command it runs yields a
// statically linked binary.
func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile("docker/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var froms, expose []string
	var user, build string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "FROM "):
			froms = append(froms, line)
			user, expose = "", nil
		case strings.HasPrefix(line, "EXPOSE "):
			expose = append(expose, strings.Fields(strings.TrimPrefix(line, "EXPOSE "))...)
		case strings.HasPrefix(line, "USER "):
			user = strings.TrimPrefix(line, "USER ")
		case strings.HasPrefix(line, "RUN CGO_ENABLED=0 go build"):
			build = line
		}
	}
	if len(froms) < 2 || !strings.Contains(froms[0], " AS build") {
		t.Errorf("want a build stage and a final stage, got %q", froms)
	}
	if uid, _, _ := strings.Cut(user, ":"); user == "" || uid == "0" || uid == "root" {
		t.Errorf("final stage runs as %q, want a non-root user", user)
	}
	// EXPOSE documents what a container of the image listens on: the API
	// port by default, and the admin port only if that were on by default.
	def := config.Default()
	want := []string{fmt.Sprint(def.ServerPort)}
	if def.AdminEnabled() {
		want = append(want, fmt.Sprint(def.AdminServerPort))
	}
	if slices.Sort(expose); !slices.Equal(expose, want) {
		t.Errorf("the final stage exposes %v; svc-serve serves %v without configuration", expose, want)
	}
	if build == "" {
		t.Fatal("no CGO_ENABLED=0 go build step")
	}
	// Run the same build (from the repository root) and check the result
	// needs no dynamic loader, as the distroless static image requires.
	out := filepath.Join(t.TempDir(), "svc-serve")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, "./cmd/svc-serve")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, msg)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("svc-serve is dynamically linked; the static image cannot run it")
		}
	}
}

// TestKubernetesManifests parses every manifest and checks what the fleet
// relies on: probes on the admin port's /ready and /live, a non-root
// security context, the Secret-provided database URI, a Service reaching
// the pods, and the publishing Job refusing breaking changes.
func TestKubernetesManifests(t *testing.T) {
	kinds := manifests(t)
	for _, k := range []string{"ConfigMap", "Deployment", "Service", "Job"} {
		if kinds[k] == nil {
			t.Errorf("no %s manifest", k)
		}
	}
	dep := kinds["Deployment"]
	if dep == nil {
		return
	}
	c := dig(dep, "spec", "template", "spec", "containers", 0)
	if dig(c, "readinessProbe", "httpGet", "path") != "/ready" || dig(c, "livenessProbe", "httpGet", "path") != "/live" ||
		dig(c, "readinessProbe", "httpGet", "port") != "admin" {
		t.Errorf("probes: %v / %v", dig(c, "readinessProbe"), dig(c, "livenessProbe"))
	}
	if dig(dep, "spec", "template", "spec", "securityContext", "runAsNonRoot") != true {
		t.Error("the pods may run as root")
	}
	if dig(c, "env", 0, "name") != "SVC_DB_URI" || dig(c, "env", 0, "valueFrom", "secretKeyRef", "name") == nil {
		t.Error("SVC_DB_URI does not come from a Secret")
	}
	conf, _ := dig(kinds["ConfigMap"], "data", "svc.conf").(string)
	for _, want := range []string{`snapshot = "db"`, "admin-server-port = 3001"} {
		if !strings.Contains(conf, want) {
			t.Errorf("svc.conf lacks %s", want)
		}
	}
	args, _ := dig(kinds["Job"], "spec", "template", "spec", "containers", 0, "args").([]any)
	if !slices.Contains(args, any("publish")) || !slices.Contains(args, any("--fail-on-breaking")) {
		t.Errorf("publish job args %v", args)
	}
	// The Service reaches the Deployment's pods, on a port they name.
	svc := kinds["Service"]
	selector, _ := dig(svc, "spec", "selector").(map[string]any)
	if len(selector) == 0 {
		t.Error("the Service selects no pods")
	}
	for k, v := range selector {
		if dig(dep, "spec", "template", "metadata", "labels", k) != v {
			t.Errorf("the Service selects %s=%v, which the Deployment's pods are not labelled", k, v)
		}
	}
	ports, _ := dig(c, "ports").([]any)
	target := dig(svc, "spec", "ports", 0, "targetPort")
	if !slices.ContainsFunc(ports, func(p any) bool { return dig(p, "name") == target }) {
		t.Errorf("the Service's targetPort %v is not a port of the container (%v)", target, ports)
	}
}

// manifests parses deploy/k8s/*.yaml into its documents, by kind (one
// of each), each with the file it came from under the key "file".
func manifests(t *testing.T) map[string]map[string]any {
	t.Helper()
	files, _ := filepath.Glob("k8s/*.yaml")
	kinds := map[string]map[string]any{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			kind, _ := doc["kind"].(string)
			if doc["apiVersion"] == nil || kind == "" || dig(doc, "metadata", "name") == nil {
				t.Fatalf("%s: a document without apiVersion, kind or metadata.name", file)
			}
			if kinds[kind] != nil {
				t.Fatalf("%s: a second %s", file, kind)
			}
			doc["file"] = file
			kinds[kind] = doc
		}
	}
	return kinds
}

// dig walks maps by key and lists by index; nil when the path is absent.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// TestSystemdUnit has systemd-analyze verify the unit, pointed at a real
// binary (the unit's /usr/local/bin path does not exist here).
func TestSystemdUnit(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed; the unit is checked where systemd is")
	}
	data, err := os.ReadFile("systemd/svc-serve.service")
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	unit := strings.ReplaceAll(string(data), "/usr/local/bin/svc-serve", exe)
	path := filepath.Join(t.TempDir(), "svc-serve.service")
	if err := os.WriteFile(path, []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	// verify also reports on units this machine's systemd cannot know (no
	// svc user here, no running systemd in a container); only lines about
	// the unit's own syntax count.
	var problems []string
	for _, line := range strings.Split(string(out), "\n") {
		if regexp.MustCompile(`svc-serve\.service:\d+:`).MatchString(line) {
			problems = append(problems, line)
		}
	}
	if len(problems) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, strings.Join(problems, "\n"))
	}
}
