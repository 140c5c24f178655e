package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// uiSeen is what testdata/openapi/ui.js reports.
type uiSeen struct {
	Requests   []string `json:"requests"`
	Failed     []string `json:"failed"`
	Violations []string `json:"violations"`
	CSP        string   `json:"csp"`
	Tags       []string `json:"tags"`
	Title      string   `json:"title"`
	Status     string   `json:"status"`
	Body       string   `json:"body"`
}

// TestOpenAPIUIInBrowser drives the reference page openapi-ui-path
// serves in headless Chromium (puppeteer-core): the page loads under its
// Content-Security-Policy without a violation, lists the relations, asks
// no other host for anything, and its "try it" on GET /books returns the
// rows the filter typed into it selects.
func TestOpenAPIUIInBrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		missingDependency(t, "chromium is not installed (apt-get install chromium); this test drives a real browser")
	}
	node := requireNodePackage(t, validatorDir, "puppeteer-core")
	api := serverWith(t, map[string]string{"openapi-ui-path": "/reference/api"})
	out := runTool(t, node, validatorDir, "ui.js", chromium, api+"/reference/api/")
	var seen uiSeen
	if err := json.Unmarshal(out, &seen); err != nil {
		t.Fatalf("ui.js printed %s: %v", out, err)
	}
	if !strings.Contains(seen.CSP, "default-src 'self'") {
		t.Errorf("Content-Security-Policy %q", seen.CSP)
	}
	if len(seen.Violations) > 0 || len(seen.Failed) > 0 {
		t.Errorf("violations %q, failed requests %q", seen.Violations, seen.Failed)
	}
	origin, _ := url.Parse(api)
	for _, r := range seen.Requests {
		// data: URIs are Swagger UI's icons, inside its stylesheet.
		if u, err := url.Parse(r); err != nil || (u.Host != origin.Host && u.Scheme != "data") {
			t.Errorf("the page asked another host: %s", r)
		}
	}
	// Every relation and function the document tags, the page lists.
	var doc struct {
		Tags []struct {
			Name string `json:"name"`
		} `json:"tags"`
	}
	if err := json.Unmarshal(fetchRootAs(t, api, openAPI31, "", ""), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tag := range doc.Tags {
		if !slices.Contains(seen.Tags, tag.Name) {
			t.Errorf("the page does not list %s", tag.Name)
		}
	}
	if !slices.Contains(seen.Tags, "books") || len(seen.Tags) != len(doc.Tags) {
		t.Errorf("the page lists %d tags, the document has %d: %q", len(seen.Tags), len(doc.Tags), seen.Tags)
	}
	if seen.Title == "" || !strings.HasPrefix(seen.Title, "SVC API") {
		t.Errorf("title %q", seen.Title)
	}
	var rows []struct {
		Title string `json:"title"`
	}
	if err := json.Unmarshal([]byte(seen.Body), &rows); err != nil || seen.Status != "200" {
		t.Fatalf("try it: status %q, body %q (%v)", seen.Status, seen.Body, err)
	}
	var titles []string
	for _, r := range rows {
		titles = append(titles, r.Title)
	}
	if strings.Join(titles, "|") != "Dune|The Left Hand of Darkness" {
		t.Errorf("try it with year=lt.1970: %q", titles)
	}
}

// TestOpenAPIUIPage: the page and its files are served with the policy,
// the bare path redirects below itself, other files and methods are
// refused, and without openapi-ui-path the path is a relation's.
func TestOpenAPIUIPage(t *testing.T) {
	api := serverWith(t, map[string]string{"openapi-ui-path": "/docs"})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(method, path string) *http.Response {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), method, api+path, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for path, want := range map[string]string{
		"/docs/":                     "text/html; charset=utf-8",
		"/docs/swagger-ui-bundle.js": "text/javascript; charset=utf-8",
		"/docs/swagger-ui.css":       "text/css; charset=utf-8",
		"/docs/init.js":              "text/javascript; charset=utf-8",
	} {
		resp := get(http.MethodGet, path)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != want ||
			!strings.HasPrefix(resp.Header.Get("Content-Security-Policy"), "default-src 'self';") {
			t.Errorf("GET %s: %d %q, policy %q", path, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Security-Policy"))
		}
	}
	if resp := get(http.MethodGet, "/docs"); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "docs/" {
		t.Errorf("GET /docs: %d to %q, want a redirect to docs/", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{http.MethodGet, "/docs/README.md", 404},
		{http.MethodGet, "/docs/LICENSE", 404},
		{http.MethodPost, "/docs/", 405},
	} {
		if resp := get(c.method, c.path); resp.StatusCode != c.status {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, resp.StatusCode, c.status)
		}
	}
	// Without the setting, /docs is a relation's name, and there is none.
	resp, err := http.Get(fixture.url + "/docs/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || resp.Header.Get("Content-Security-Policy") != "" {
		t.Errorf("without openapi-ui-path, GET /docs/: %d, policy %q", resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
	}
}
