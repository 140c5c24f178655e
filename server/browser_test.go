package server_test

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// crossOriginPage is served from one origin and calls the API on another,
// as a single-page application would, then writes what it saw into the
// page for the test to read. The GET asks for a count (a Prefer header) and
// the POST sends JSON, so both need a CORS preflight.
const crossOriginPage = `<!doctype html><html><body><pre id="out">pending</pre><script>
(async () => {
  const api = %q;
  const out = {};
  try {
    const r = await fetch(api + "/authors?select=id&order=id&limit=2", {headers: {"Prefer": "count=exact"}});
    out.status = r.status;
    out.range = r.headers.get("Content-Range");
    out.body = await r.json();
    const w = await fetch(api + "/rpc_log", {method: "POST",
      headers: {"Content-Type": "application/json", "Prefer": "return=headers-only"},
      body: JSON.stringify({name: "from the browser"})});
    out.insert = w.status;
    out.location = w.headers.get("Location");
  } catch (e) {
    out.error = String(e);
  }
  document.getElementById("out").textContent = JSON.stringify(out);
})();
</script></body></html>`

// browserResult is what crossOriginPage reports.
type browserResult struct {
	Status   int               `json:"status"`
	Range    string            `json:"range"`
	Body     []json.RawMessage `json:"body"`
	Insert   int               `json:"insert"`
	Location string            `json:"location"`
	Error    string            `json:"error"`
}

// TestCORSInBrowser has headless Chromium fetch from SVC across origins:
// with any origin allowed the page reads rows, Content-Range and Location;
// with an origin list that leaves the page's origin out, the browser
// refuses the responses.
func TestCORSInBrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		missingDependency(t, "chromium is not installed (apt-get install chromium); this test drives a real browser")
	}
	open := serverWith(t, map[string]string{"db-max-rows": "0"})
	got := runPage(t, chromium, open)
	if got.Error != "" || got.Status != 206 || got.Range != "0-1/3" || len(got.Body) != 2 {
		t.Errorf("read across origins: %+v", got)
	}
	if got.Insert != 201 || !strings.HasPrefix(got.Location, "/rpc_log?id=eq.") {
		t.Errorf("insert across origins: status %d, Location %q (error %q)", got.Insert, got.Location, got.Error)
	}

	closed := serverWith(t, map[string]string{"server-cors-allowed-origins": "http://app.example"})
	if got := runPage(t, chromium, closed); got.Error == "" || got.Status != 0 {
		t.Errorf("an origin outside server-cors-allowed-origins read the response: %+v", got)
	}
}

var outElement = regexp.MustCompile(`(?s)<pre id="out">(.*?)</pre>`)

// runPage serves crossOriginPage calling api from an origin of its own,
// loads it in headless Chromium and returns what the page reported.
func runPage(t *testing.T, chromium, api string) browserResult {
	t.Helper()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, crossOriginPage, api)
	}))
	defer page.Close()
	cmd := exec.CommandContext(t.Context(), chromium, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-dev-shm-usage", "--no-first-run", "--user-data-dir="+t.TempDir(),
		"--virtual-time-budget=10000", "--dump-dom", page.URL)
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	m := outElement.FindSubmatch(dom)
	if m == nil {
		t.Fatalf("no result in the page: %s", dom)
	}
	var got browserResult
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &got); err != nil {
		t.Fatalf("page reported %s: %v", m[1], err)
	}
	return got
}
