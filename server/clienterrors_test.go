package server_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
)

// TestClientErrorVerbosity: under client-error-verbosity = minimal an
// error's body is its code and message only, whatever the error: one of
// PostgreSQL's, one of SVC's with details, and one whose advice a verbose
// server sends in SVC-Advice, which a minimal one keeps for its log. The
// status and Proxy-Status stay. The verbose server answers the same
// requests with every field.
func TestClientErrorVerbosity(t *testing.T) {
	t.Parallel()
	minimal, _ := serverWithSnapshots(t, map[string]string{"client-error-verbosity": "minimal"})
	for _, c := range []struct {
		name, path, accept string
		status             int
		code               string
	}{
		{"a database error", "/nonexistent_table", "", 404, "42P01"},
		{"an error with details", "/books?select=title", "application/vnd.svc.object+json", 406, "SVC116"},
		{"an error with advice", "/rpc/raise_header_pgrst?name=X-Raised&value=yes", "", 400, "PGRST"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			status, h, body := fetchHeader(t, minimal+c.path, c.accept, "")
			var got map[string]any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("minimal: %d %s: %v", status, body, err)
			}
			keys := make([]string, 0, len(got))
			for k := range got {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if status != c.status || got["code"] != c.code || !slices.Equal(keys, []string{"code", "message"}) {
				t.Errorf("minimal: %d %s, want %d with code %s and message only", status, body, c.status, c.code)
			}
			if ps := h.Get("Proxy-Status"); ps == "" {
				t.Error("minimal: no Proxy-Status")
			}
			if a := h.Get(apierr.AdviceHeader); a != "" {
				t.Errorf("minimal: %s: %s", apierr.AdviceHeader, a)
			}

			status, h, body = fetchHeader(t, fixture.url+c.path, c.accept, "")
			got = nil
			json.Unmarshal(body, &got)
			_, details := got["details"]
			_, hint := got["hint"]
			if status != c.status || got["code"] != c.code || !details || !hint {
				t.Errorf("verbose: %d %s, want %d with code %s, details and hint", status, body, c.status, c.code)
			}
			if c.code == "PGRST" && h.Get(apierr.AdviceHeader) == "" {
				t.Errorf("verbose: no %s", apierr.AdviceHeader)
			}
		})
	}
}
