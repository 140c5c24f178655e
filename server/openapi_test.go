package server_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// rootDoc is the part of the root document these tests read.
type rootDoc struct {
	Host                string                                 `json:"host"`
	BasePath            string                                 `json:"basePath"`
	Schemes             []string                               `json:"schemes"`
	Paths               map[string]map[string]json.RawMessage  `json:"paths"`
	Definitions         map[string]struct{ Required []string } `json:"definitions"`
	SecurityDefinitions map[string]map[string]string           `json:"securityDefinitions"`
	Security            []map[string][]string                  `json:"security"`
}

func decodeRoot(t *testing.T, body []byte) rootDoc {
	t.Helper()
	var d rootDoc
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// methods lists the operations of path, sorted; nil when the path is absent.
func (d rootDoc) methods(path string) []string {
	item, ok := d.Paths[path]
	if !ok {
		return nil
	}
	out := []string{}
	for m := range item {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// TestOpenAPIDocument checks what the root document offers to whom, end to
// end: privileges, writability by relation kind, volatility, security and
// the proxy URI.
func TestOpenAPIDocument(t *testing.T) {
	const secret = "an-openapi-test-secret-of-32-characters"
	token, err := mintTokens(`Bearer {{jwt {"role":"web_user"}}}`, secret)
	if err != nil {
		t.Fatal(err)
	}
	anon := decodeRoot(t, fetchRoot(t, fixture.url, "", ""))
	user := decodeRoot(t, fetchRoot(t, serverWith(t, map[string]string{"jwt-secret": secret, "openapi-security-active": "true"}), token, ""))
	all := decodeRoot(t, fetchRoot(t, serverWith(t, map[string]string{"openapi-mode": "ignore-privileges",
		"openapi-server-proxy-uri": "https://api.example:8443/v1"}), "", ""))
	other := decodeRoot(t, fetchRoot(t, fixture.url, "", "other"))

	for _, c := range []struct {
		name string
		doc  rootDoc
		path string
		want []string // nil: absent
	}{
		{"anon reads authors only", anon, "/authors", []string{"get"}},
		{"anon does everything on oa_things", anon, "/oa_things", []string{"delete", "get", "patch", "post"}},
		{"a view that takes no writes", anon, "/oa_counts", []string{"get"}},
		{"insert only", anon, "/oa_inbox", []string{"post"}},
		{"column insert grant", anon, "/w_restricted", []string{"get", "post"}},
		{"auto-updatable view, no insert grant", anon, "/w_tasks_v", []string{"delete", "get", "patch"}},
		{"materialized view", anon, "/author_stats", []string{"get"}},
		{"anon cannot read members", anon, "/members", nil},
		{"nobody's table", anon, "/vault", nil},
		{"stable function", anon, "/rpc/oa_sum", []string{"get", "post"}},
		{"volatile function: POST only", anon, "/rpc/oa_bump", []string{"post"}},
		{"execute revoked from PUBLIC", anon, "/rpc/locked_fn", nil},
		{"the root itself", anon, "/", []string{"get"}},
		{"web_user reads members", user, "/members", []string{"get"}},
		{"web_user is not web_anon", user, "/oa_things", nil},
		{"PUBLIC may execute", user, "/rpc/oa_sum", []string{"get", "post"}},
		{"ignore-privileges shows vault", all, "/vault", []string{"delete", "get", "patch", "post"}},
		{"ignore-privileges shows locked_fn", all, "/rpc/locked_fn", []string{"post"}},
		{"ignore-privileges keeps the kind's limits", all, "/oa_counts", []string{"get"}},
		{"other schema", other, "/books", []string{"get"}},
		{"other schema has no authors", other, "/authors", nil},
	} {
		if got := c.doc.methods(c.path); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %s offers %v, want %v", c.name, c.path, got, c.want)
		}
	}
	if got := anon.Definitions["oa_things"].Required; !reflect.DeepEqual(got, []string{"code"}) {
		t.Errorf("oa_things required = %v, want [code]", got)
	}
	if _, ok := anon.Definitions["members"]; ok {
		t.Error("anon document defines members")
	}
	if anon.SecurityDefinitions != nil || anon.Security != nil {
		t.Errorf("security without openapi-security-active: %v %v", anon.SecurityDefinitions, anon.Security)
	}
	jwt := user.SecurityDefinitions["JWT"]
	if jwt["type"] != "apiKey" || jwt["in"] != "header" || jwt["name"] != "Authorization" ||
		!reflect.DeepEqual(user.Security, []map[string][]string{{"JWT": {}}}) {
		t.Errorf("security = %v, %v", user.SecurityDefinitions, user.Security)
	}
	if all.Host != "api.example:8443" || all.BasePath != "/v1" || !reflect.DeepEqual(all.Schemes, []string{"https"}) {
		t.Errorf("proxy URI: host %q, basePath %q, schemes %v", all.Host, all.BasePath, all.Schemes)
	}
	if anon.Host != "0.0.0.0:3000" || anon.BasePath != "/" || !reflect.DeepEqual(anon.Schemes, []string{"http"}) {
		t.Errorf("default server: host %q, basePath %q, schemes %v", anon.Host, anon.BasePath, anon.Schemes)
	}
	if get := string(anon.Paths["/oa_things"]["get"]); !strings.Contains(get, `"summary":"Things summary"`) ||
		!strings.Contains(get, `"description":"Things described at length."`) {
		t.Errorf("oa_things GET summary/description: %s", get)
	}
}
