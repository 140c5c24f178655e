package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// validatorDir holds validate.js and its npm dependencies.
const validatorDir = "testdata/openapi"

// TestOpenAPIValidates runs the root document in both versions (Swagger
// 2.0, OpenAPI 3.1), as the anonymous role, in the other schema, as a
// token's role and in ignore-privileges mode, through a real validator
// (swagger-parser: the specification's JSON schema plus its further
// rules, with every $ref resolved).
func TestOpenAPIValidates(t *testing.T) {
	node := requireValidator(t)
	const secret = "an-openapi-test-secret-of-32-characters"
	withJWT := serverWith(t, map[string]string{"jwt-secret": secret, "openapi-security-active": "true"})
	ignoring := serverWith(t, map[string]string{"openapi-mode": "ignore-privileges",
		"openapi-server-proxy-uri": "https://api.example:8443/v1"})
	token, err := mintTokens(`Bearer {{jwt {"role":"web_user"}}}`, secret)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct{ name, accept, version string }{
		{"2.0", "application/openapi+json", "2.0"},
		{"3.1", openAPI31, "3.1.0"},
	} {
		for _, c := range []struct{ name, url, auth, profile string }{
			{"anonymous", fixture.url, "", ""},
			{"anonymous other schema", fixture.url, "", "other"},
			{"jwt role", withJWT, token, ""},
			{"ignore privileges", ignoring, "", ""},
		} {
			t.Run(v.name+"/"+c.name, func(t *testing.T) {
				doc := fetchRootAs(t, c.url, v.accept, c.auth, c.profile)
				var head struct {
					Swagger string `json:"swagger"`
					OpenAPI string `json:"openapi"`
				}
				if err := json.Unmarshal(doc, &head); err != nil || head.Swagger+head.OpenAPI != v.version {
					t.Fatalf("not a document of version %s (%v): %.200s", v.version, err, doc)
				}
				runTool(t, node, ".", filepath.Join(validatorDir, "validate.js"), writeDoc(t, doc))
			})
		}
	}
}

// requireValidator returns the node binary once the validator is installed.
func requireValidator(t *testing.T) string {
	t.Helper()
	return requireNodePackage(t, validatorDir, "@apidevtools/swagger-parser")
}

// fetchRoot gets the root document, failing unless it is one.
func fetchRoot(t *testing.T, baseURL, auth, profile string) []byte {
	t.Helper()
	return fetchRootAs(t, baseURL, "application/openapi+json", auth, profile)
}

// fetchRootAs gets the root document asking for it as accept.
func fetchRootAs(t *testing.T, baseURL, accept, auth, profile string) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, baseURL+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if profile != "" {
		req.Header.Set("Accept-Profile", profile)
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
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/openapi+json") {
		t.Fatalf("GET / = %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	return body
}
