package deploy_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/sql/pgtest"
)

// walkthrough is what docs/kubernetes.md has the reader run, read from its
// code blocks.
type walkthrough struct {
	commands []string                     // shell lines, continuations joined, in page order
	setupSQL string                       // the superuser's one-time SQL
	secrets  map[string]map[string]string // kubectl create secret: name -> key -> value
	images   map[string]string            // manifest file -> the text its sed replaces
}

// TestKubernetesWalkthrough follows docs/kubernetes.md with the manifests
// of deploy/k8s on a real PostgreSQL, as far as a machine without a
// cluster can: the page's order (secrets, image, first publish, then the
// Deployment), the Secrets it creates covering what the pods read, its
// setup SQL, then the publish Job's command as the publishing role, and
// svc-serve as the Deployment runs it, with the ConfigMap's svc.conf and
// the Secret's URI, which must get ready (/ready) and serve. A second
// publish after a migration must reach the running server.
func TestKubernetesWalkthrough(t *testing.T) {
	w := readWalkthrough(t)
	kinds := manifests(t)
	job, dep, cm := kinds["Job"], kinds["Deployment"], kinds["ConfigMap"]
	if job == nil || dep == nil || cm == nil {
		t.Fatal("deploy/k8s lacks the Job, the Deployment or the ConfigMap")
	}

	// The order of the page: nothing is applied before what it needs.
	steps := []string{"kubectl create secret", "docker push", "deploy/k8s/configmap.yaml",
		"deploy/k8s/publish-job.yaml", "deploy/k8s/deployment.yaml"}
	at := -1
	for _, step := range steps {
		i := slices.IndexFunc(w.commands, func(c string) bool { return strings.Contains(c, step) })
		if i < at {
			t.Errorf("docs/kubernetes.md runs %q before what comes ahead of it in %q", step, steps)
		}
		at = max(at, i)
		if i < 0 {
			t.Errorf("docs/kubernetes.md never runs %q", step)
		}
	}
	for kind, doc := range kinds {
		file := "deploy/" + doc["file"].(string)
		if !slices.ContainsFunc(w.commands, func(c string) bool { return strings.Contains(c, file) }) {
			t.Errorf("docs/kubernetes.md never applies the %s, %s", kind, file)
		}
		if c := dig(doc, "spec", "template", "spec", "containers", 0); c != nil {
			if image := "image: " + fmt.Sprint(dig(c, "image")); w.images[file] != image {
				t.Errorf("docs/kubernetes.md applies %s replacing %q, but its image line is %q", file, w.images[file], image)
			}
		}
	}

	// The Job grants the role the servers log in as.
	serverURI := w.secrets["svc-db"]["uri"]
	u, err := url.Parse(serverURI)
	if err != nil || u.User == nil {
		t.Fatalf("svc-db's uri %q names no role", serverURI)
	}
	serverRole, dbName := u.User.Username(), strings.TrimPrefix(u.Path, "/")
	jobC := dig(job, "spec", "template", "spec", "containers", 0)
	jobArgs := strs(dig(jobC, "args"))
	if i := slices.Index(jobArgs, "--grant-to"); i < 0 || i+1 == len(jobArgs) || jobArgs[i+1] != serverRole {
		t.Errorf("the publish Job's args %v do not grant %s, the role of the Secret svc-db, read access to the snapshot", jobArgs, serverRole)
	}

	// Then run it all on a real PostgreSQL.
	ctx := context.Background()
	c, err := pgtest.Start(ctx, pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	superURI, err := c.CreateDatabase(ctx, dbName)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, superURI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	dir := t.TempDir()
	confPath := filepath.Join(dir, "svc.conf")
	conf := configMapFile(t, dep, cm)
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(config.Sources{File: confPath})
	if err != nil {
		t.Fatalf("the ConfigMap's svc.conf: %v", err)
	}
	checkPorts(t, dep, cfg)
	// What the page presumes: the API's schema and the roles of
	// getting-started.md, step 3.
	exec1 := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	role := pgx.Identifier{serverRole}.Sanitize()
	anon := pgx.Identifier{cfg.DBAnonRole}.Sanitize()
	exec1(fmt.Sprintf(`create role %[1]s login noinherit; create role %[2]s nologin; grant %[2]s to %[1]s;
		create schema api; create table api.todos (id int primary key, task text);
		grant usage on schema api to %[2]s; grant select on api.todos to %[2]s`, role, anon))
	exec1(w.setupSQL)

	serve, introspect := buildPrograms(t, dir)
	local := func(uri string) string {
		u, err := url.Parse(uri)
		if err != nil {
			t.Fatal(err)
		}
		u.Host = fmt.Sprintf("127.0.0.1:%d", c.Port)
		return u.String()
	}
	publish := func() {
		t.Helper()
		args := configArg(t, job, cm, jobArgs, confPath)
		cmd := exec.Command(introspect, args...)
		cmd.Env = podEnv(t, jobC, w.secrets, local)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "granted read access to "+serverRole) {
			t.Fatalf("the publish Job (svc-introspect %s): %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	publish()

	depC := dig(dep, "spec", "template", "spec", "containers", 0)
	depArgs := strs(dig(depC, "args"))
	api, admin := freePort(t), freePort(t)
	cmd := exec.Command(serve, configArg(t, dep, cm, depArgs, confPath)...)
	// The ports are the pod's own; on this machine, free ones.
	cmd.Env = append(podEnv(t, depC, w.secrets, local), "SVC_SERVER_PORT="+api, "SVC_ADMIN_SERVER_PORT="+admin)
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	await := func(what, addr string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if res, err := http.Get(addr); err == nil {
				res.Body.Close()
				if res.StatusCode == 200 {
					return
				}
			}
		}
		t.Fatalf("%s: %s never answered 200\n%s", what, addr, log.String())
	}
	await("the Deployment's readiness probe", "http://127.0.0.1:"+admin+"/ready")
	await("the API", "http://127.0.0.1:"+api+"/todos")

	exec1("alter table api.todos add column note text")
	publish()
	await("the API after a migration and a publish", "http://127.0.0.1:"+api+"/todos?select=id,note")
}

// readWalkthrough reads docs/kubernetes.md's commands.
func readWalkthrough(t *testing.T) walkthrough {
	t.Helper()
	data, err := os.ReadFile("../docs/kubernetes.md")
	if err != nil {
		t.Fatal(err)
	}
	w := walkthrough{secrets: map[string]map[string]string{}, images: map[string]string{}}
	var sql []string
	inSQL, joined := false, ""
	for _, line := range strings.Split(string(data), "\n") {
		code, ok := strings.CutPrefix(line, "    ")
		switch {
		case !ok:
			continue
		case inSQL:
			if inSQL = code != "SQL"; inSQL {
				sql = append(sql, code)
			}
			continue
		case strings.HasSuffix(code, "<<'SQL'"):
			if len(sql) > 0 {
				t.Fatal("docs/kubernetes.md has more than one SQL script; the test runs the one for the setup")
			}
			inSQL = true
		}
		if more, ok := strings.CutSuffix(code, `\`); ok {
			joined += more
			continue
		}
		w.commands = append(w.commands, joined+code)
		joined = ""
	}
	w.setupSQL = strings.Join(sql, "\n")
	if w.setupSQL == "" {
		t.Fatal("docs/kubernetes.md has no setup SQL (psql ... <<'SQL')")
	}
	secret := regexp.MustCompile(`^kubectl create secret generic (\S+)`)
	literal := regexp.MustCompile(`--from-literal=([^=]+)='([^']*)'`)
	sed := regexp.MustCompile(`^sed "s\|([^|]+)\|[^|]+\|" (deploy/k8s/\S+) \| kubectl apply -f -$`)
	for _, c := range w.commands {
		if m := secret.FindStringSubmatch(c); m != nil {
			w.secrets[m[1]] = map[string]string{}
			for _, kv := range literal.FindAllStringSubmatch(c, -1) {
				w.secrets[m[1]][kv[1]] = kv[2]
			}
		}
		if m := sed.FindStringSubmatch(c); m != nil {
			w.images[m[2]] = m[1]
		}
	}
	return w
}

// configMapFile returns the svc.conf the pod of doc reads: the ConfigMap's
// key at the path its --config names, through the volume mounted there.
func configMapFile(t *testing.T, doc, cm map[string]any) string {
	t.Helper()
	c := dig(doc, "spec", "template", "spec", "containers", 0)
	args := strs(dig(c, "args"))
	i := slices.Index(args, "--config")
	if i < 0 || i+1 == len(args) {
		t.Fatalf("%s: no --config", doc["file"])
	}
	path := args[i+1]
	mounts, _ := dig(c, "volumeMounts").([]any)
	for _, m := range mounts {
		key, ok := strings.CutPrefix(path, fmt.Sprint(dig(m, "mountPath"))+"/")
		if !ok {
			continue
		}
		vols, _ := dig(doc, "spec", "template", "spec", "volumes").([]any)
		for _, v := range vols {
			if dig(v, "name") == dig(m, "name") && dig(v, "configMap", "name") == dig(cm, "metadata", "name") {
				if text, ok := dig(cm, "data", key).(string); ok {
					return text
				}
			}
		}
	}
	t.Fatalf("%s: --config %s is not a key of the ConfigMap mounted in its pod", doc["file"], path)
	return ""
}

// configArg returns args with the --config path replaced by path, after
// checking that the pod of doc reads the same file through its volume.
func configArg(t *testing.T, doc, cm map[string]any, args []string, path string) []string {
	t.Helper()
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := configMapFile(t, doc, cm); got != string(want) {
		t.Fatalf("%s reads another svc.conf than the Deployment", doc["file"])
	}
	out := slices.Clone(args)
	out[slices.Index(out, "--config")+1] = path
	return out
}

// podEnv is the container's environment, Secrets read from the page's
// kubectl create secret (a missing one fails unless optional), database
// URIs pointed at the local server, over this process's own, less any
// SVC_* variable of the machine's.
func podEnv(t *testing.T, c any, secrets map[string]map[string]string, local func(string) string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SVC_") {
			env = append(env, kv)
		}
	}
	vars, _ := dig(c, "env").([]any)
	for _, v := range vars {
		name, value := fmt.Sprint(dig(v, "name")), dig(v, "value")
		if ref := dig(v, "valueFrom", "secretKeyRef"); ref != nil {
			s, k := fmt.Sprint(dig(ref, "name")), fmt.Sprint(dig(ref, "key"))
			val, ok := secrets[s][k]
			if !ok {
				if dig(ref, "optional") != true {
					t.Errorf("%s reads the key %s of the Secret %s, which docs/kubernetes.md does not create", name, k, s)
				}
				continue
			}
			if k == "uri" {
				val = local(val)
			}
			value = val
		}
		env = append(env, name+"="+fmt.Sprint(value))
	}
	return env
}

// strs is a YAML list of strings.
func strs(v any) []string {
	list, _ := v.([]any)
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprint(s)
	}
	return out
}

// checkPorts: the container ports the probes and the Service name are the
// ones svc.conf has svc-serve listen on.
func checkPorts(t *testing.T, dep map[string]any, cfg *config.Config) {
	t.Helper()
	ports := map[string]string{}
	list, _ := dig(dep, "spec", "template", "spec", "containers", 0, "ports").([]any)
	for _, p := range list {
		ports[fmt.Sprint(dig(p, "name"))] = fmt.Sprint(dig(p, "containerPort"))
	}
	if ports["http"] != fmt.Sprint(cfg.ServerPort) || ports["admin"] != fmt.Sprint(cfg.AdminServerPort) {
		t.Errorf("container ports %v; svc.conf has server-port %d, admin-server-port %d", ports, cfg.ServerPort, cfg.AdminServerPort)
	}
}
