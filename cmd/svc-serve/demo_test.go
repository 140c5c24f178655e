package main

import (
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDemo runs svc-serve demo and then every curl command it prints, as
// a user would paste them: the reads as the anonymous role, and with the
// printed token an insert, an update and a function call as the writer
// role; the last, without the token, is refused.
func TestDemo(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed; the demo's examples are curl commands")
	}
	var out logBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- demo(ctx, &out, 0, "error") }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("demo: %v", err)
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(out.String(), "JWT secret") {
		select {
		case err := <-done:
			done <- err
			t.Fatalf("demo ended: %v\n%s", err, out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo printed no examples:\n%s", out.String())
		}
	}

	var export string
	var commands []string
	for _, line := range strings.Split(out.String(), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "export TOKEN="):
			export = line
		case strings.HasPrefix(line, "curl "):
			commands = append(commands, line)
		}
	}
	want := []struct {
		status int
		body   string // a regular expression the response body matches
	}{
		{200, `"name":"Frank Herbert"`},
		{200, `^\[\{"title":"Parable of the Sower","year":1993\}`},
		{200, `"authors":\{"name":"Ursula K. Le Guin"\}`},
		{200, `"decade":1960`},
		{200, `^\[\{"title":"Children of Dune","decade":1970\},\s*\{"title":"Kindred","decade":1970\},\s*\{"title":"The Dispossessed","decade":1970\}\]$`},
		{201, `^\[\{"id":7,"title":"The Lathe of Heaven","year":1971,"author_id":2\}\]$`},
		{200, `^\[\{"id":7,"title":"The Lathe of Heaven","year":1972,"author_id":2\}\]$`},
		{200, `^3$`},
		{401, `"code":"42501"`},
	}
	if export == "" || len(commands) != len(want) {
		t.Fatalf("want a TOKEN and %d curl commands, got:\n%s", len(want), out.String())
	}
	for i, command := range commands {
		// The command as printed, told to print the status after the body.
		script := export + "\n" + command + ` -sS -w '\n%{http_code}'`
		got, err := exec.Command("sh", "-c", script).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", command, err, got)
		}
		text := strings.TrimSpace(string(got))
		cut := strings.LastIndex(text, "\n")
		body, status := strings.TrimSpace(text[:max(cut, 0)]), text[cut+1:]
		if status != strconv.Itoa(want[i].status) || !regexp.MustCompile(want[i].body).MatchString(body) {
			t.Errorf("%s\n  got %s %s\n  want %d, body matching %s", command, status, body, want[i].status, want[i].body)
		}
	}
}
