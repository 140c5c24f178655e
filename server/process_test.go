package server_test

import (
	"bytes"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// A server under another naming (compat-names) runs here as a process of
// its own: svc-serve itself, built from cmd/svc-serve, which tests the
// program a PostgREST deployment would switch to, its start-up, channel
// and in-database settings included. The naming is a value each Server
// is handed (TestTwoNamingsInOneProcess), not a setting of the process.

// processWith starts svc-serve with settings over the shared fixture's,
// written as a PostgREST-style config file, and returns its base URL.
// serverWith comes here for settings naming compat-names.
func processWith(t *testing.T, settings map[string]string) string {
	t.Helper()
	url, _ := processOutputWith(t, settings)
	return url
}

// processOutputWith is processWith also returning the program's output,
// for tests that wait for what it logs.
func processOutputWith(t *testing.T, settings map[string]string) (string, *syncBuffer) {
	t.Helper()
	url, output, _ := processCmdWith(t, settings)
	return url, output
}

// processCmdWith is processOutputWith also returning the running command,
// for tests that read the process's memory.
func processCmdWith(t *testing.T, settings map[string]string) (string, *syncBuffer, *exec.Cmd) {
	t.Helper()
	port := freePort(t)
	conf := map[string]string{
		"db-uri":       fixture.authURI,
		"db-schemas":   strings.Join(fixture.cfg.DBSchemas, ","),
		"db-anon-role": fixture.cfg.DBAnonRole,
		"server-host":  "127.0.0.1",
		"server-port":  port,
	}
	maps.Copy(conf, settings)
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(conf)) {
		v := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(conf[k])
		fmt.Fprintf(&b, "%s = \"%s\"\n", k, v)
	}
	file := filepath.Join(t.TempDir(), "svc.conf")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return startProcessCmd(t, file, nil, port)
}

// startProcess runs svc-serve --config file, with env added to this
// process's environment, and waits until it answers on port. It returns
// the base URL and the program's standard error, which holds its start-up
// warnings. The process is stopped (SIGINT) when the test ends.
func startProcess(t *testing.T, file string, env []string, port string) (string, *syncBuffer) {
	t.Helper()
	url, stderr, _ := startProcessCmd(t, file, env, port)
	return url, stderr
}

// startProcessCmd is startProcess also returning the running command,
// for tests that read the process's memory.
func startProcessCmd(t *testing.T, file string, env []string, port string) (string, *syncBuffer, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(buildServe(t), "--config", file)
	// SVC_* and PGRST_* variables of the environment running the tests
	// would configure the process; only the ones given here count.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SVC_") && !strings.HasPrefix(kv, "PGRST_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	stderr := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("svc-serve output:\n%s", stderr.String())
		}
	})
	url := "http://127.0.0.1:" + port
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-exited:
			exited <- err // for the clean-up
			t.Fatalf("svc-serve exited at start (%v):\n%s", err, stderr.String())
		default:
		}
		if resp, err := http.Get(url + "/"); err == nil {
			resp.Body.Close()
			return url, stderr, cmd
		}
		if time.Now().After(deadline) {
			t.Fatalf("svc-serve did not answer on %s:\n%s", url, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// buildServe builds svc-serve for the test (about a second with a warm
// build cache).
func buildServe(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "svc-serve")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/svc-serve")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build svc-serve: %v\n%s", err, out)
	}
	return bin
}

// freePort finds a TCP port free at the moment.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
}

// syncBuffer is a bytes.Buffer safe for the process writing it and the
// test reading it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
