package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/reload"
)

// TestCases runs every case file under testdata/cases against a server on
// the fixture database, twice: the
// second pass reads every shape the first one read from the statements
// the shared server kept, so each case checks the kept path too.
func TestCases(t *testing.T) {
	files, err := filepath.Glob("testdata/cases/*.case")
	if err != nil || len(files) == 0 {
		t.Fatalf("no case files found: %v", err)
	}
	for _, pass := range []string{"first", "kept"} {
		t.Run(pass, func(t *testing.T) { runCaseFiles(t, files) })
	}
}

// runCaseFiles runs the case files, each as a subtest.
func runCaseFiles(t *testing.T, files []string) {
	for _, file := range files {
		cases, settings, err := readCaseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(strings.TrimSuffix(filepath.Base(file), ".case"), func(t *testing.T) {
			if script, ok := settings["fixture"]; ok {
				delete(settings, "fixture")
				runFixtureScript(t, script)
			}
			baseURL := fixture.url
			secret := settings["jwt-secret"]
			if len(settings) > 0 {
				baseURL = serverWith(t, settings)
			}
			for _, c := range cases {
				if !runCase(t, baseURL, c, secret) {
					// Later cases in a file may depend on earlier ones.
					return
				}
			}
		})
	}
}

// runFixtureScript runs testdata/<name> as the superuser before a case
// file that writes: the script resets the rows of the tables the file
// changes, so the file starts from the same rows on every run and writes in
// one file cannot disturb another.
func runFixtureScript(t *testing.T, name string) {
	t.Helper()
	sql, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(t.Context(), fixture.superURI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	if _, err := conn.Exec(t.Context(), string(sql)); err != nil {
		t.Fatalf("fixture script %s: %v", name, err)
	}
}

// serverWith starts a server with settings over the shared fixture's
// configuration, for case files that need, say, a row cap. A naming other
// than SVC's runs as svc-serve, a process of its own (processWith), so
// that its cases test the program a PostgREST deployment switches to.
func serverWith(t *testing.T, settings map[string]string) string {
	t.Helper()
	if mode, ok := settings["compat-names"]; ok && mode != "svc" {
		return processWith(t, settings)
	}
	url, _ := serverWithSnapshots(t, settings)
	return url
}

// serverWithSnapshots is serverWith in this process, under any naming,
// for tests that reload the server's snapshot themselves.
func serverWithSnapshots(t *testing.T, settings map[string]string) (string, *reload.Snapshots) {
	t.Helper()
	flags := map[string]string{
		"db-uri":       fixture.cfg.DBURI,
		"db-schemas":   strings.Join(fixture.cfg.DBSchemas, ","),
		"db-anon-role": fixture.cfg.DBAnonRole,
	}
	maps.Copy(flags, settings)
	cfg, warnings, err := config.Load(config.Sources{Flags: flags})
	if err != nil || len(warnings) > 0 {
		t.Fatalf("case file settings %v: %v %v", settings, err, warnings)
	}
	srv, snaps, err := startServer(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv.URL, snaps
}

func runCase(t *testing.T, baseURL string, c testCase, jwtSecret string) bool {
	t.Helper()
	where := fmt.Sprintf("%s:%d (%s)", c.file, c.line, c.name)
	var body io.Reader
	if c.reqBody != "" {
		body = strings.NewReader(c.reqBody)
	}
	req, err := http.NewRequest(c.method, baseURL+strings.ReplaceAll(c.target, " ", "%20"), body)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return false
	}
	for _, h := range c.reqHeader {
		v, err := mintTokens(h[1], jwtSecret)
		if err != nil {
			t.Errorf("%s: %v", where, err)
			return false
		}
		if strings.EqualFold(h[0], "Host") {
			req.Host = v // the client sends req.Host, not a Host in the header map
			continue
		}
		req.Header.Add(h[0], v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return false
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	ok := true
	if resp.StatusCode != c.status {
		t.Errorf("%s: status %d, want %d; body: %s", where, resp.StatusCode, c.status, got)
		ok = false
	}
	// A header listed once must have that first value; listed more than
	// once, exactly those values in that order.
	listed := map[string][]string{}
	for _, h := range c.respHeader {
		k := http.CanonicalHeaderKey(h[0])
		listed[k] = append(listed[k], h[1])
	}
	for _, h := range c.respHeader {
		k := http.CanonicalHeaderKey(h[0])
		if want := listed[k]; len(want) > 1 {
			if got := resp.Header.Values(k); !slices.Equal(got, want) {
				t.Errorf("%s: header %s = %q, want %q", where, k, got, want)
				ok = false
			}
			continue
		}
		if v := snapshotNamed.ReplaceAllString(resp.Header.Get(h[0]), "fingerprint <fingerprint>, taken <time>"); v != h[1] {
			t.Errorf("%s: header %s = %q, want %q", where, h[0], v, h[1])
			ok = false
		}
	}
	if !sameBody(got, c.respBody) {
		t.Errorf("%s: body\n got: %s\nwant: %s", where, got, c.respBody)
		ok = false
	}
	return ok
}

// sameBody compares JSON semantically (key order and white space do not
// matter; numbers compare by their text) and anything else exactly, once
// the snapshot a hint names is masked (snapshotNamed); a regular
// expression sees the answer as it is.
func sameBody(got []byte, want string) bool {
	g := bytes.TrimSpace(got)
	if pattern, ok := strings.CutPrefix(want, "~ "); ok {
		return regexp.MustCompile(pattern).Match(g)
	}
	g = snapshotNamed.ReplaceAll(g, []byte("fingerprint <fingerprint>, taken <time>"))
	if want == "" || !json.Valid([]byte(want)) {
		return string(g) == want
	}
	var gv, wv any
	gd := json.NewDecoder(bytes.NewReader(g))
	gd.UseNumber()
	wd := json.NewDecoder(strings.NewReader(want))
	wd.UseNumber()
	if gd.Decode(&gv) != nil || wd.Decode(&wv) != nil {
		return false
	}
	return reflect.DeepEqual(gv, wv)
}

// snapshotNamed is how a hint names the snapshot in use, whose
// fingerprint and time change with the fixture and the run: a case writes
// them as "fingerprint <fingerprint>, taken <time>".
var snapshotNamed = regexp.MustCompile(`fingerprint [0-9a-f]{12}, taken [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z`)

// tokenTemplate is how a case file writes a token: {{jwt <claims>}} stands
// for the claims (a JSON object, where $now stands for the current time,
// see nowTemplate) signed with HS256 and the file's
// jwt-secret, so cases show the claims rather than opaque tokens.
var tokenTemplate = regexp.MustCompile(`\{\{jwt (.*)\}\}`)

// nowTemplate in the claims stands for the current Unix time, with an
// optional offset in seconds: "exp": $now-10.
var nowTemplate = regexp.MustCompile(`\$now([+-][0-9]+)?`)

// mintTokens replaces a token template in a header value.
func mintTokens(value, secret string) (string, error) {
	m := tokenTemplate.FindStringSubmatchIndex(value)
	if m == nil {
		return value, nil
	}
	if secret == "" {
		return "", fmt.Errorf("{{jwt ...}} needs %% jwt-secret in the case file")
	}
	text := nowTemplate.ReplaceAllStringFunc(value[m[2]:m[3]], func(v string) string {
		offset, _ := strconv.ParseInt(strings.TrimPrefix(v, "$now"), 10, 64)
		return strconv.FormatInt(time.Now().Unix()+offset, 10)
	})
	var claims jwt.MapClaims
	if err := json.Unmarshal([]byte(text), &claims); err != nil {
		return "", fmt.Errorf("{{jwt ...}} claims: %w", err)
	}
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(secret))
	if err != nil {
		return "", err
	}
	return value[:m[0]] + token + value[m[1]:], nil
}
