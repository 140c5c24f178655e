package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestPGRSTEnvironmentChoosesNaming: a PostgREST deployment's PGRST_*
// variables, with nothing setting compat-names, are read, under
// PostgREST's names, and svc-serve says at start that it chose them and
// why, rather than ignore them and wait for a database on a local socket.
func TestPGRSTEnvironmentChoosesNaming(t *testing.T) {
	p := startProcess(t, []string{"--server-host", "127.0.0.1", "--server-port", "0"},
		"PGRST_DB_URI="+authURI, "PGRST_DB_SCHEMAS=serve_api", "PGRST_DB_ANON_ROLE=serve_anon", "PGRST_DB_CHANNEL_ENABLED=false")
	m := p.await(t, `level=NOTICE msg=listening address=(\S+)`)
	if m == nil {
		t.Fatalf("svc-serve exited (%v):\n%s", p.err, p.output)
	}
	chosen := `level=WARN msg="compat-names = postgrest chosen: PostgREST's environment variables ` +
		"PGRST_DB_ANON_ROLE, PGRST_DB_CHANNEL_ENABLED, PGRST_DB_SCHEMAS, PGRST_DB_URI are set and nothing sets compat-names"
	if !strings.Contains(p.output.String(), chosen) {
		t.Errorf("the output does not say why PostgREST's names are in force:\n%s", p.output)
	}
	for path, want := range map[string]string{
		"/rpc/nap?seconds=0": `200 "rested"`,
		"/rpc/nope":          `404 {"code":"PGRST202"`,
	} {
		resp, err := http.Get("http://" + m[1] + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := resp.Status[:3] + " " + string(body); !strings.HasPrefix(got, want) {
			t.Errorf("GET %s: %s, want %s...", path, got, want)
		}
	}
}

// TestPGRSTEnvironmentRefused: with compat-names = svc set on purpose,
// PGRST_* variables that would configure the server stop it at start,
// named, with the setting that would read them.
func TestPGRSTEnvironmentRefused(t *testing.T) {
	p := startProcess(t, []string{"--server-host", "127.0.0.1", "--server-port", "0", "--db-channel-enabled", "false"},
		"SVC_COMPAT_NAMES=svc", "PGRST_DB_URI="+authURI, "PGRST_DB_SCHEMAS=serve_api")
	if m := p.await(t, `level=NOTICE msg=listening`); m != nil {
		t.Fatalf("svc-serve started under compat-names = svc, PGRST_* variables ignored:\n%s", p.output)
	}
	want := "svc-serve: PostgREST's environment variables PGRST_DB_SCHEMAS, PGRST_DB_URI are set, and compat-names = svc " +
		"(environment variable SVC_COMPAT_NAMES) does not read them: set compat-names = postgrest to read them, " +
		"or unset them and set SVC_DB_SCHEMAS, SVC_DB_URI instead\n"
	if p.output.String() != want || p.err == nil {
		t.Errorf("svc-serve exited (%v) with\n%s\nwant\n%s", p.err, p.output, want)
	}
}
