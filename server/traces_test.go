package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
)

// TestOtherNamingTraces: under SVC's names, what PostgREST's names leave
// in a deployment (clients asking for application/vnd.pgrst.* types,
// functions raising SQLSTATE 'PGRST') is answered with PostgREST's body
// and advice naming the fix, and the log says once per kind which naming
// is in force and what compat-names = postgrest would change (issue 56).
func TestOtherNamingTraces(t *testing.T) {
	url, output := processOutputWith(t, map[string]string{"db-schemas": "test,js", "compat-names": "svc"})
	type answer struct {
		status int
		body   map[string]any
		advice string
	}
	do := func(method, path, accept, body string) answer {
		t.Helper()
		req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Content-Profile", "js")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		a := answer{status: resp.StatusCode, advice: resp.Header.Get(apierr.AdviceHeader)}
		if err := json.Unmarshal(raw, &a.body); err != nil {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
		}
		return a
	}
	const changes = "compat-names = postgrest would change error codes SVC100.. to PGRST100.., " +
		"media types application/vnd.svc.* to application/vnd.pgrst.*, the channel svc to pgrst, in-database settings svc.* to pgrst.*, " +
		"custom errors RAISE SQLSTATE 'SVC..' to 'PGRST', and the environment variables read (SVC_* only to PGRST_* and SVC_*) (said once)"

	for range 2 {
		a := do("GET", "/books?id=eq.1", "application/vnd.pgrst.object+json", "")
		if a.status != 415 || a.body["hint"] != nil || a.body["code"] != "SVC107" ||
			!strings.HasPrefix(a.advice, "application/vnd.pgrst.* are the media types of compat-names = postgrest, and this server runs under compat-names = svc") {
			t.Errorf("vnd.pgrst.object+json: %d %v, advice %q", a.status, a.body, a.advice)
		}
	}
	media := `a request asked for application/vnd.pgrst.object+json: a trace of compat-names = postgrest, ` +
		`and this server runs under compat-names = svc; ` + changes
	waitOutput(t, output, media)

	for range 2 {
		a := do("POST", "/rpc/raise_custom", "", `{"state":"PGRST"}`)
		if a.status != 400 || a.body["code"] != "PGRST" || a.body["hint"] != nil ||
			a.advice != "SQLSTATE 'PGRST' is the custom error of compat-names = postgrest, and this server runs under compat-names = svc: "+
				"raise SQLSTATE 'SVC00' (the same message and detail) instead, or set compat-names = postgrest" {
			t.Errorf("RAISE SQLSTATE 'PGRST': %d %v, advice %q", a.status, a.body, a.advice)
		}
	}
	raise := `a function raised SQLSTATE 'PGRST': a trace of compat-names = postgrest, and this server runs under compat-names = svc; ` + changes
	waitOutput(t, output, raise)
	for _, line := range []string{"a request asked for application/vnd.pgrst", "a function raised SQLSTATE"} {
		if n := strings.Count(output.String(), line); n != 1 {
			t.Errorf("%q logged %d times, want once:\n%s", line, n, output)
		}
	}
}
