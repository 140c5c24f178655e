package deploy_test

import (
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/config"
)

// TestREADMEDockerRun checks the README's `docker run` against the files
// the README has the reader make, in the current directory: svc.conf as
// its sample shows it, and the snapshot its dump command writes. Inside
// the container, svc-serve must find the configuration at the path given
// to --config and the snapshot where the configuration names it (relative
// to the configuration's directory), both through the volumes mounted;
// the container port published must be the one svc-serve listens on; and
// the image run must be the one the README builds.
func TestREADMEDockerRun(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	conf := sampleConfig(t, readme)
	snapshot, port := conf["snapshot"], conf["server-port"]
	if port == "" {
		port = fmt.Sprint(config.Default().ServerPort)
	}
	// Without -o, dump writes the file's own snapshot setting.
	if dump := regexp.MustCompile(`svc-introspect dump --config svc\.conf(?: -o (\S+))?`).FindStringSubmatch(readme); dump == nil || dump[1] != "" && dump[1] != snapshot {
		t.Fatalf("the README's dump does not write the snapshot its sample svc.conf names (%q): %v", snapshot, dump)
	}
	build := regexp.MustCompile(`(?m)^\s*docker build .*-t (\S+) \.$`).FindStringSubmatch(readme)
	line := regexp.MustCompile(`(?m)^\s*(docker run .*)$`).FindStringSubmatch(readme)
	if build == nil || line == nil {
		t.Fatal("the README has no docker build -t ... or docker run line")
	}
	run := parseDockerRun(t, line[1])
	if run.image != build[1] {
		t.Errorf("docker run runs %q; the README builds %q", run.image, build[1])
	}
	if !run.ports[port] {
		t.Errorf("docker run publishes container ports %v; svc-serve listens on %s", run.ports, port)
	}
	if run.config == "" {
		t.Fatal("docker run gives svc-serve no --config")
	}
	// Host paths are relative to the directory the reader works in, where
	// svc.conf and the snapshot are.
	if host, ok := run.hostPath(run.config); !ok || host != "svc.conf" {
		t.Errorf("--config %s is %q on the host, want svc.conf (mounts %v)", run.config, host, run.mounts)
	}
	inContainer := snapshot
	if !path.IsAbs(inContainer) {
		inContainer = path.Join(path.Dir(run.config), snapshot)
	}
	if host, ok := run.hostPath(inContainer); !ok || host != path.Clean(snapshot) {
		t.Errorf("svc-serve reads the snapshot at %s in the container, which is %q on the host (mounted: %t), not the %s the dump wrote (mounts %v)",
			inContainer, host, ok, snapshot, run.mounts)
	}
}

// sampleConfig reads the README's sample configuration, the block that
// starts with "# svc.conf".
func sampleConfig(t *testing.T, readme string) map[string]string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "    # svc.conf\n")
	if !ok {
		t.Fatal("the README has no sample svc.conf")
	}
	conf := map[string]string{}
	for _, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "    ") {
			break
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			conf[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return conf
}

// dockerRun is what a docker run command line asks for.
type dockerRun struct {
	image  string
	config string            // svc-serve's --config
	mounts map[string]string // container path -> host path, relative to $PWD
	ports  map[string]bool   // container ports published
}

// parseDockerRun reads the options of docker run the README may use; an
// option it does not know fails the test rather than be misread.
func parseDockerRun(t *testing.T, line string) dockerRun {
	t.Helper()
	words := strings.Fields(strings.ReplaceAll(line, `"`, ""))[2:]
	r := dockerRun{mounts: map[string]string{}, ports: map[string]bool{}}
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case r.image != "":
			if w == "--config" && i+1 < len(words) {
				r.config = words[i+1]
				i++
			}
		case w == "--rm":
		case w == "-p" || w == "-v" || w == "-e" || w == "--network":
			if i+1 == len(words) {
				t.Fatalf("docker run: %s without a value", w)
			}
			i++
			switch w {
			case "-p":
				parts := strings.Split(words[i], ":")
				r.ports[parts[len(parts)-1]] = true
			case "-v":
				parts := strings.Split(words[i], ":")
				host := strings.TrimPrefix(strings.TrimPrefix(parts[0], "$PWD"), "/")
				r.mounts[path.Clean(parts[1])] = host
			}
		case strings.HasPrefix(w, "-"):
			t.Fatalf("docker run option %s: the test does not know it", w)
		default:
			r.image = w
		}
	}
	return r
}

// hostPath maps a container path to the host path mounted there, relative
// to the working directory; ok is false when no volume holds it.
func (r dockerRun) hostPath(p string) (string, bool) {
	p = path.Clean(p)
	for dst, src := range r.mounts {
		if p == dst {
			return path.Clean(src), true
		}
		if rel, ok := strings.CutPrefix(p, dst+"/"); ok {
			return path.Join(src, rel), true
		}
	}
	return "", false
}
