package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestChunkedBodyTooLarge: a body sent without a length (chunked) is
// refused once it passes server-max-body-bytes, 413 as one whose
// Content-Length says so at once (limits.case).
func TestChunkedBodyTooLarge(t *testing.T) {
	base := serverWith(t, map[string]string{"server-max-body-bytes": "64"})
	// A MultiReader hides the length, so the client sends it chunked.
	body := io.MultiReader(strings.NewReader(`{"padding":"` + strings.Repeat("x", 100) + `"}`))
	resp, err := http.Post(base+"/rpc/echo_json", "application/json", body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(got), `"code":"SVC102"`) {
		t.Errorf("a chunked body over the limit: %d %s, want 413 SVC102", resp.StatusCode, got)
	}
}
