package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// runAsServe, set in the environment, has TestMain run svc-serve's main
// instead of the tests. A test of the program as a deployment runs it,
// under PostgREST's names or SVC's, runs it as a process of its own: this test binary, as svc-serve, with no go tool needed. The
// name has no SVC_ prefix, which svc-serve would take for a setting.
const runAsServe = "GO_TEST_RUN_SVC_SERVE"

// process is svc-serve running as a process of its own.
type process struct {
	output *logBuffer // standard output and error together
	exited chan error // receives Wait's result once
	err    error      // that result, once received
	done   bool
}

// startProcess runs svc-serve with args, in this process's environment
// without its SVC_* and PGRST_* variables (which would configure it) but
// with env. The process is stopped (SIGINT) when the test ends.
func startProcess(t *testing.T, args []string, env ...string) *process {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SVC_") && !strings.HasPrefix(kv, "PGRST_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, runAsServe+"=1"), env...)
	p := &process{output: &logBuffer{}, exited: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = p.output, p.output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if !p.done {
			cmd.Process.Signal(os.Interrupt)
			select {
			case <-p.exited:
			case <-time.After(15 * time.Second):
				cmd.Process.Kill()
				<-p.exited
			}
		}
		if t.Failed() {
			t.Logf("svc-serve output:\n%s", p.output)
		}
	})
	return p
}

// await waits until the output has a line matching re, and returns its
// submatches, or until the process exits, and returns nil; it fails the
// test when neither comes about within a while.
func (p *process) await(t *testing.T, re string) []string {
	t.Helper()
	pattern := regexp.MustCompile(re)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := pattern.FindStringSubmatch(p.output.String()); m != nil {
			return m
		}
		if p.done {
			return nil
		}
		select {
		case p.err = <-p.exited:
			p.done = true
			continue // the output is complete: look once more
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("svc-serve neither wrote a line matching %s nor exited:\n%s", re, p.output)
		}
	}
}
