package server_test

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
)

// TestPostgRESTDeployment starts svc-serve the way a PostgREST 12
// deployment would after switching: its configuration file unchanged
// (config/testdata/postgrest12.conf), the connection string and port in
// PGRST_* variables, and only SVC_COMPAT_NAMES=postgrest added. It checks
// the start-up report of unimplemented keys, then that clients get
// PostgREST's names and the deployment's settings apply, and that the
// server listens on channel pgrst.
func TestPostgRESTDeployment(t *testing.T) {
	port := freePort(t)
	url, output := startProcess(t, filepath.Join("config", "testdata", "postgrest12.conf"), []string{
		"SVC_COMPAT_NAMES=postgrest",
		"PGRST_DB_URI=" + fixture.authURI,
		"PGRST_SERVER_PORT=" + port,
		"APP_NAME=shop",
		"SVC_LOG_LEVEL=info", // the file says error; info shows the channel
	}, port)

	for _, key := range []string{"jwt-cache-max-lifetime", "db-pool-automatic-recovery"} {
		want := `level=WARN msg="configuration key \"` + key + `\" is not implemented by SVC and is ignored`
		if n := strings.Count(output.String(), want); n != 1 {
			t.Errorf("start-up output reports %s %d times, want once:\n%s", key, n, output)
		}
	}

	token, err := mintTokens(`{{jwt {"role":"web_user"}}}`, "a-postgrest-secret-of-more-than-32-chars")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path, accept, token string
		status                    int
		body                      string
	}{
		{"object media type", "/books?select=title&id=eq.1", "application/vnd.pgrst.object+json", "", 200, `{"title":"Dune"}`},
		{"PGRST code", "/books?select=title", "application/vnd.pgrst.object+json", "", 406,
			`{"code":"PGRST116","message":"JSON object requested, multiple (or no) rows returned","details":"The result contains 7 rows","hint":null}`},
		{"the file's jwt-secret and app.settings", "/rpc/request_context", "", token, 200,
			`{"role":"web_user","claims":{"role":"web_user"},"method":"GET","path":"/rpc/request_context","custom_header":null,` +
				`"host":"` + strings.TrimPrefix(url, "http://") + `","cookie_header":null,` +
				`"cookies":{},"statement_timeout":"4s","isolation":"repeatable read","greeting":"hello from shop"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := fetch(t, url+c.path, c.accept, c.token)
			if status != c.status || !sameBody(body, c.body) {
				t.Errorf("GET %s = %d %s\nwant %d %s", c.path, status, body, c.status, c.body)
			}
		})
	}

	waitOutput(t, output, `msg="listening for notifications" channel=pgrst`)
	conn, err := pgx.Connect(t.Context(), fixture.superURI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	if _, err := conn.Exec(t.Context(), "notify pgrst, 'reload config'"); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, output, `msg="configuration reloaded"`)
}

// TestNamingTable keeps compat-names' values and the naming table equal,
// and checks that PostgREST's naming is PostgREST's.
func TestNamingTable(t *testing.T) {
	modes := slices.Sorted(maps.Keys(apierr.Namings))
	if !slices.Equal(modes, slices.Sorted(slices.Values(config.NamingModes))) || config.NamingModes[0] != "svc" {
		t.Errorf("apierr.Namings %v, config.NamingModes %v", modes, config.NamingModes)
	}
	want := apierr.Naming{CodePrefix: "PGRST", Vendor: "pgrst", Channel: "pgrst", RaiseState: "PGRST", SettingPrefix: "pgrst.",
		Product: "PostgREST"}
	if apierr.Namings[config.CompatPostgREST] != want {
		t.Errorf("postgrest naming = %+v", apierr.Namings[config.CompatPostgREST])
	}
}

// TestReloadKeepsNaming refuses a reloaded configuration that switches
// compat-names: the naming is fixed when the process starts.
func TestReloadKeepsNaming(t *testing.T) {
	file := filepath.Join(t.TempDir(), "svc.conf")
	base := "db-uri = \"" + fixture.authURI + "\"\ndb-schemas = \"test\"\ndb-anon-role = \"web_anon\"\ndb-config = false\n"
	if err := os.WriteFile(file, []byte(base), 0o600); err != nil {
		t.Fatal(err)
	}
	rt, _ := startRuntime(t, config.Sources{File: file}, "")
	if err := os.WriteFile(file, []byte(base+"compat-names = \"postgrest\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := rt.ReloadConfig(t.Context())
	if err == nil || !strings.Contains(err.Error(), "compat-names changed from svc to postgrest") {
		t.Errorf("reload = %v, want the switch refused", err)
	}
	if rt.Config().CompatNames != "svc" {
		t.Errorf("compat-names in force = %s", rt.Config().CompatNames)
	}
}

// fetch requests url with an optional Accept header and bearer token.
func fetch(t *testing.T, url, accept, token string) (int, []byte) {
	t.Helper()
	status, _, body := fetchHeader(t, url, accept, token)
	return status, body
}

// fetchHeader is fetch also returning the answer's header.
func fetchHeader(t *testing.T, url, accept, token string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(body) {
		t.Errorf("GET %s: not JSON: %s", url, body)
	}
	return resp.StatusCode, resp.Header, body
}

// waitOutput waits until the process output holds text.
func waitOutput(t *testing.T, output *syncBuffer, text string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(output.String(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("svc-serve did not log %s:\n%s", text, output)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
