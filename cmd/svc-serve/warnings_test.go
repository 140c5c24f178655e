package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestWarningsFollowLogFormat: with log-format = json, the configuration's
// warnings (an unknown key here) are JSON lines like the rest of the log,
// at level WARN whatever log-level says, so that a log collector gets
// exactly the lines that say what is misconfigured.
func TestWarningsFollowLogFormat(t *testing.T) {
	p := startProcess(t, []string{"--server-host", "127.0.0.1", "--server-port", "0", "--db-channel-enabled", "false"},
		"SVC_DB_URI="+authURI, "SVC_DB_SCHEMAS=serve_api", "SVC_DB_ANON_ROLE=serve_anon",
		"SVC_LOG_FORMAT=json", "SVC_DB_SHEMAS=serve_api")
	if m := p.await(t, `"msg":"listening"`); m == nil {
		t.Fatalf("svc-serve exited (%v):\n%s", p.err, p.output)
	}
	found := false
	for _, line := range strings.Split(strings.TrimSpace(p.output.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("not a JSON line: %q", line)
			continue
		}
		if msg, _ := rec["msg"].(string); strings.Contains(msg, "SVC_DB_SHEMAS") {
			found = true
			if rec["level"] != "WARN" {
				t.Errorf("the warning's level is %v, want WARN", rec["level"])
			}
		}
	}
	if !found {
		t.Errorf("no warning names SVC_DB_SHEMAS:\n%s", p.output)
	}
}
