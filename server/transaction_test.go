package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Requests run in the pipeline's implicit transaction when nothing calls
// for BEGIN. These tests pin what BEGIN used to guarantee: read committed
// whatever the session's default, and read-only reads; and how the
// sessions requests run in are named.

// TestIsolationWhateverTheSessionDefault connects with a session default
// of serializable: requests must still run at read committed, the level
// BEGIN names when the default cannot be used.
func TestIsolationWhateverTheSessionDefault(t *testing.T) {
	for _, tc := range []struct{ name, uri string }{
		{"default", fixture.authURI},
		{"serializable session", serializableURI()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := serverWith(t, map[string]string{"db-uri": tc.uri})
			for _, method := range []string{http.MethodGet, http.MethodPost} {
				got := requestContext(t, base, method)
				if got["isolation"] != "read committed" {
					t.Errorf("%s: isolation %q, want read committed", method, got["isolation"])
				}
			}
		})
	}
}

// TestReadsAreReadOnly: a GET runs read only in either kind of
// transaction, so a function that writes fails when called by GET.
func TestReadsAreReadOnly(t *testing.T) {
	for _, uri := range []string{fixture.authURI, serializableURI()} {
		base := serverWith(t, map[string]string{"db-uri": uri})
		got := requestContext(t, base, http.MethodGet)
		if got["read_only"] != "on" {
			t.Errorf("%s: GET ran with transaction_read_only %q", uri, got["read_only"])
		}
		if got := requestContext(t, base, http.MethodPost); got["read_only"] != "off" {
			t.Errorf("%s: POST ran with transaction_read_only %q", uri, got["read_only"])
		}
	}
}

// TestSessionsNamed: SVC's sessions carry application_name svc, unless
// db-uri names another.
func TestSessionsNamed(t *testing.T) {
	for uri, want := range map[string]string{
		fixture.authURI:                       "svc",
		withParam("application_name=billing"): "billing",
	} {
		base := serverWith(t, map[string]string{"db-uri": uri})
		if got := requestContext(t, base, http.MethodGet)["application_name"]; got != want {
			t.Errorf("%s: application_name %q, want %q", uri, got, want)
		}
	}
}

// requestContext calls test.transaction_context and decodes its object.
func requestContext(t *testing.T, base, method string) map[string]string {
	t.Helper()
	body := ""
	if method == http.MethodPost {
		body = "{}"
	}
	req, _ := http.NewRequestWithContext(t.Context(), method, base+"/rpc/transaction_context", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s /rpc/transaction_context: status %d, %v", method, resp.StatusCode, err)
	}
	return out
}

// serializableURI is the fixture's authenticator URI with the session's
// default isolation level set to serializable at connection start.
func serializableURI() string { return withParam("default_transaction_isolation=serializable") }

// withParam is the fixture's authenticator URI with a connection
// parameter added.
func withParam(param string) string {
	sep := "?"
	if strings.Contains(fixture.authURI, "?") {
		sep = "&"
	}
	return fixture.authURI + sep + param
}
