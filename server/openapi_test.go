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

// TestOpenAPIColumnsFollowPrivileges: under follow-privileges a role is
// told only of the columns it may read or write, so the document does not
// reveal a column it holds no privilege on; it may filter only on those it
// may read. Ignoring privileges, every column is described.
func TestOpenAPIColumnsFollowPrivileges(t *testing.T) {
	const secret = "an-openapi-test-secret-of-32-characters"
	token, err := mintTokens(`Bearer {{jwt {"role":"web_user"}}}`, secret)
	if err != nil {
		t.Fatal(err)
	}
	type doc struct {
		Definitions map[string]struct{ Properties map[string]any } `json:"definitions"`
		Parameters  map[string]any                                 `json:"parameters"`
	}
	read := func(body []byte) doc {
		var d doc
		if err := json.Unmarshal(body, &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	user := read(fetchRoot(t, serverWith(t, map[string]string{"jwt-secret": secret}), token, ""))
	all := read(fetchRoot(t, serverWith(t, map[string]string{"jwt-secret": secret, "openapi-mode": "ignore-privileges"}), token, ""))
	anon := read(fetchRoot(t, fixture.url, "", ""))
	columns := func(d doc, rel string) []string {
		var out []string
		for c := range d.Definitions[rel].Properties {
			out = append(out, c)
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		name string
		d    doc
		rel  string
		want []string
	}{
		{"web_user may read three columns of pm_notes", user, "pm_notes", []string{"body", "id", "owner"}},
		{"ignore-privileges names them all", all, "pm_notes", []string{"body", "id", "owner", "secret"}},
		{"insert on the table gives every column", anon, "oa_inbox", []string{"body", "id"}},
		{"select on the table gives every column", anon, "w_restricted", []string{"id", "name", "secret"}},
	} {
		if got := columns(c.d, c.rel); !slices.Equal(got, c.want) {
			t.Errorf("%s: %s has %v, want %v", c.name, c.rel, got, c.want)
		}
	}
	if _, ok := user.Parameters["rowFilter.pm_notes.secret"]; ok {
		t.Error("web_user is offered a filter on pm_notes.secret")
	}
	if _, ok := user.Parameters["rowFilter.pm_notes.body"]; !ok {
		t.Error("web_user is not offered a filter on pm_notes.body")
	}
	if _, ok := anon.Parameters["rowFilter.oa_inbox.body"]; ok {
		t.Error("anon, who may only insert into oa_inbox, is offered a filter on it")
	}
}
